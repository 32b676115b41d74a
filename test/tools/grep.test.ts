import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grepTool, runGrep } from "../../src/tools/grep.js";
import {
  makeContext,
  makeTemporaryDirectory,
  removeTemporaryDirectory,
  runTool,
} from "./tool-context.js";

let directory: string;

beforeEach(async () => {
  directory = await makeTemporaryDirectory();
  await writeFile(join(directory, "data.txt"), "apple\nbanana\napricot\ncherry\n");
});

afterEach(async () => {
  await removeTemporaryDirectory(directory);
});

function grep(args: Record<string, unknown>) {
  return runTool(grepTool, args, makeContext(directory));
}

/** Runs grep with a ripgrep path that cannot be started, so the JavaScript search answers. */
function grepWithoutRipgrep(args: Record<string, unknown>) {
  return runGrep(grepTool.input.parse(args), makeContext(directory), join(directory, "no-rg"));
}

async function writeSources(): Promise<void> {
  await mkdir(join(directory, "src", "lib"), { recursive: true });
  await writeFile(join(directory, "src", "a.ts"), "const Alpha = 1;\nconst beta = 2;\n");
  await writeFile(join(directory, "src", "lib", "b.ts"), "// alpha helper\nexport {};\n");
  await writeFile(join(directory, "src", "notes.md"), "alpha notes\n");
}

describe("grep", () => {
  it("answers the transcript's content search exactly", async () => {
    const path = join(directory, "data.txt");
    const result = await grep({ pattern: "^ap", path, output_mode: "content", "-n": true });
    expect(result).toEqual({ content: `${path}:1:apple\n${path}:3:apricot`, isError: false });
  });

  it("lists files with matches by default, relative to the cwd", async () => {
    await writeSources();
    expect((await grep({ pattern: "alpha" })).content).toBe("src/lib/b.ts\nsrc/notes.md");
    expect((await grep({ pattern: "alpha", "-i": true })).content).toBe(
      "src/a.ts\nsrc/lib/b.ts\nsrc/notes.md",
    );
    expect((await grep({ pattern: "alpha", ignore_case: true, glob: "*.ts" })).content).toBe(
      "src/a.ts\nsrc/lib/b.ts",
    );
    expect((await grep({ pattern: "alpha", type: "md", path: "src" })).content).toBe(
      "src/notes.md",
    );
  });

  it("shows context lines with separators", async () => {
    const result = await grep({
      pattern: "banana|cherry",
      path: "data.txt",
      output_mode: "content",
      "-B": 1,
    });
    expect(result.content).toBe(
      "data.txt-1-apple\ndata.txt:2:banana\ndata.txt-3-apricot\ndata.txt:4:cherry",
    );
    const aliased = await grep({
      pattern: "^apple",
      path: "data.txt",
      output_mode: "content",
      context: 1,
    });
    expect(aliased.content).toBe("data.txt:1:apple\ndata.txt-2-banana");
  });

  it("counts matching lines per file", async () => {
    const result = await grep({ pattern: "^ap", output_mode: "count" });
    expect(result.content).toBe("data.txt:2");
  });

  it("leaves gitignored files out", async () => {
    await writeFile(join(directory, ".gitignore"), "ignored.txt\n");
    await writeFile(join(directory, "ignored.txt"), "apple pie\n");
    expect((await grep({ pattern: "apple" })).content).toBe("data.txt");
  });

  it("cuts results at head_limit and says how many were left out", async () => {
    const many = Array.from({ length: 30 }, (_, index) => `match ${index}`).join("\n");
    await writeFile(join(directory, "many.txt"), many);
    const result = await grep({
      pattern: "match",
      path: "many.txt",
      output_mode: "content",
      head_limit: 5,
    });
    const lines = result.content.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "many.txt:1:match 0",
      "many.txt:2:match 1",
      "many.txt:3:match 2",
      "many.txt:4:match 3",
      "many.txt:5:match 4",
    ]);
    expect(lines[5]).toBe(
      "[Showing 5 of 30 lines; 25 left out. Raise head_limit or narrow path/glob to see more.]",
    );
  });

  it("a folder with no file to search is no match, not an error (ripgrep exits 2 for it)", async () => {
    const noFiles = {
      content:
        "No matches found: no files were searched (the path holds no files, or every file is ignored, hidden or left out by the glob).",
      isError: false,
    };
    await mkdir(join(directory, "empty"));
    await mkdir(join(directory, "hidden-only"));
    await writeFile(join(directory, "hidden-only", ".secret"), "apple\n");
    for (const folder of ["empty", "hidden-only"]) {
      const context = makeContext(join(directory, folder));
      expect(await runTool(grepTool, { pattern: "apple" }, context)).toEqual(noFiles);
    }
    expect(await grep({ pattern: "apple", glob: "*.nothing" })).toEqual(noFiles);
    // A folder named as the path is searched without complaint: plain no match.
    expect(await grep({ pattern: "apple", path: "empty" })).toEqual({
      content: "No matches found.",
      isError: false,
    });
  });

  it("searches hidden files when the glob names one, never .git (the description says so)", async () => {
    await mkdir(join(directory, ".github/workflows"), { recursive: true });
    await mkdir(join(directory, ".git"), { recursive: true });
    await writeFile(join(directory, ".github/workflows/ci.yml"), "run: kiwi\n");
    await writeFile(join(directory, ".git/config"), "kiwi\n");
    await writeFile(join(directory, ".kiwirc"), "kiwi\n");
    await writeFile(join(directory, "kiwi.txt"), "kiwi\n");
    expect(await grep({ pattern: "kiwi" })).toEqual({ content: "kiwi.txt", isError: false });
    expect(await grep({ pattern: "kiwi", glob: ".github/**" })).toEqual({
      content: ".github/workflows/ci.yml",
      isError: false,
    });
    expect(await grep({ pattern: "kiwi", glob: ".*" })).toEqual({
      content: ".kiwirc",
      isError: false,
    });
    expect(grepTool.description).toContain("skipping hidden (dot) files and folders unless");
  });

  it("says so when nothing matches, and reports a bad pattern or path as an error", async () => {
    expect(await grep({ pattern: "durian" })).toEqual({
      content: "No matches found.",
      isError: false,
    });
    const badPattern = await grep({ pattern: "(unclosed" });
    expect(badPattern.isError).toBe(true);
    expect(badPattern.content).toContain("regex parse error");
    expect(await grep({ pattern: "x", path: "missing" })).toEqual({
      content: "Path missing does not exist. Please provide a valid path.",
      isError: true,
    });
  });

  it("retries with PCRE2 when the pattern needs look-around", async () => {
    const result = await grep({ pattern: "ap(?=ricot)", output_mode: "content" });
    expect(result).toEqual({ content: "data.txt:3:apricot", isError: false });
  });

  it("searches across lines in multiline mode", async () => {
    const result = await grep({
      pattern: "banana.apricot",
      output_mode: "content",
      multiline: true,
    });
    expect(result.content).toBe("data.txt:2:banana\ndata.txt:3:apricot");
  });

  it("falls back to a JavaScript search with the same answers when ripgrep cannot start", async () => {
    await writeSources();
    await writeFile(join(directory, ".gitignore"), "ignored.txt\n");
    await writeFile(join(directory, "ignored.txt"), "apple pie\n");
    const cases: Record<string, unknown>[] = [
      { pattern: "^ap", path: join(directory, "data.txt"), output_mode: "content", "-n": true },
      { pattern: "alpha", "-i": true },
      { pattern: "alpha", path: "src", glob: "*.ts", output_mode: "content" },
      { pattern: "apple|cherry", output_mode: "content", "-C": 1 },
      { pattern: "^ap", output_mode: "count" },
      { pattern: "banana.apricot", output_mode: "content", multiline: true },
      { pattern: "durian" },
    ];
    for (const args of cases) {
      const expected = await grep(args);
      expect(await grepWithoutRipgrep(args), JSON.stringify(args)).toEqual(expected);
    }
  });

  it("returns promptly as cancelled when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runTool(
      grepTool,
      { pattern: "a" },
      makeContext(directory, { signal: controller.signal }),
    );
    expect(result).toEqual({ content: "grep cancelled.", isError: true });
  });
});
