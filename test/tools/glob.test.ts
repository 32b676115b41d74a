import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { globTool } from "../../src/tools/glob.js";
import { makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

let directory = "";
useTemporaryDirectory((path) => {
  directory = path;
});

async function writeFileAt(relativePath: string, secondsAgo = 0): Promise<void> {
  const path = join(directory, relativePath);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, "");
  const time = new Date(Date.now() - secondsAgo * 1_000);
  await utimes(path, time, time);
}

function glob(args: Record<string, unknown>) {
  return runTool(globTool, args, makeContext(directory));
}

describe("glob", () => {
  it("finds files recursively as ./relative paths, as in Copilot CLI's transcript", async () => {
    await writeFileAt("src/index.ts");
    await writeFileAt("src/readme.md");
    expect(await glob({ pattern: "**/*.ts" })).toEqual({
      content: "./src/index.ts",
      isError: false,
    });
  });

  it("skips gitignored, hidden, .git and node_modules entries", async () => {
    await writeFile(join(directory, ".gitignore"), "dist/\n");
    await writeFileAt("src/kept.ts");
    await writeFileAt("dist/built.ts");
    await writeFileAt("node_modules/pkg/index.ts");
    await writeFileAt(".git/hooks/hook.ts");
    await writeFileAt(".hidden/secret.ts");
    await writeFileAt("src/nested/generated.ts");
    await writeFile(join(directory, "src/nested/.gitignore"), "generated.ts\n");
    expect((await glob({ pattern: "**/*.ts" })).content).toBe("./src/kept.ts");
  });

  it("finds hidden entries when the pattern names one, never .git", async () => {
    await writeFileAt(".github/workflows/ci.yml", 10);
    await writeFileAt("config/.env.local", 20);
    await writeFileAt("src/app.yml", 30);
    await writeFileAt(".git/hooks/ci.yml");
    expect((await glob({ pattern: "**/*.yml" })).content).toBe("./src/app.yml");
    expect((await glob({ pattern: ".github/**/*.yml" })).content).toBe(
      "./.github/workflows/ci.yml",
    );
    expect((await glob({ pattern: "**/.*/**/*.yml" })).content).toBe("./.github/workflows/ci.yml");
    expect((await glob({ pattern: "**/.env*" })).content).toBe("./config/.env.local");
  });

  it("lists newest files first", async () => {
    await writeFileAt("old.ts", 300);
    await writeFileAt("new.ts", 0);
    await writeFileAt("middle.ts", 100);
    expect((await glob({ pattern: "*.ts" })).content).toBe("./new.ts\n./middle.ts\n./old.ts");
  });

  it("searches under path, its results from the working directory (what view takes next)", async () => {
    await writeFileAt("packages/a/src/one.ts");
    await writeFileAt("other/two.ts");
    const result = await glob({ pattern: "**/*.ts", path: "packages" });
    expect(result.content).toBe("./packages/a/src/one.ts");
  });

  it("accepts an absolute pattern and answers absolute paths", async () => {
    await writeFileAt("src/index.ts");
    const result = await glob({ pattern: `${directory}/**/*.ts` });
    expect(result.content).toBe(join(directory, "src/index.ts"));
  });

  // Trial 43 F5: an `--add-dir` folder's files were named `../nogit/src.js`, where `grep` names
  // them absolute: glob names them as the search was given, as grep does.
  it("names files as its path was given: absolute for an absolute path, else from the working directory", async () => {
    await writeFileAt("project/keep.ts");
    await writeFileAt("added/src.js");
    const context = makeContext(join(directory, "project"));
    const added = join(directory, "added");
    const absolute = await runTool(globTool, { pattern: "*.js", path: added }, context);
    expect(absolute).toEqual({ content: join(added, "src.js"), isError: false });
    const relativeResult = await runTool(globTool, { pattern: "*.js", path: "../added" }, context);
    expect(relativeResult).toEqual({ content: "../added/src.js", isError: false });
    const inside = await runTool(globTool, { pattern: "*.ts" }, context);
    expect(inside).toEqual({ content: "./keep.ts", isError: false });
  });

  it("caps the list with a note", async () => {
    for (let index = 0; index < 105; index += 1) {
      await writeFileAt(`many/file${index}.txt`, index);
    }
    const lines = (await glob({ pattern: "many/*.txt" })).content.split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe("./many/file0.txt");
    expect(lines[100]).toBe(
      "[Showing the 100 newest of 105 files. Use a narrower pattern or path to see the others.]",
    );
  });

  it("says when nothing matched, and when the path is missing", async () => {
    expect(await glob({ pattern: "**/*.rs" })).toEqual({
      content: "No files matched the pattern.",
      isError: false,
    });
    expect(await glob({ pattern: "nowhere/**/*.rs" })).toEqual({
      content: "No files matched the pattern.",
      isError: false,
    });
    const missing = await glob({ pattern: "*", path: "missing" });
    expect(missing).toEqual({
      content: "Path missing does not exist. Please provide a valid path.",
      isError: true,
    });
  });
});
