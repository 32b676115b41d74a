import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hiddenPaths, parseRule } from "../../src/permissions/permission-rules.js";
import type { ToolContext } from "../../src/tools/define-tool.js";
import { runGrep } from "../../src/tools/grep.js";
import { globTool, grepTool, viewTool } from "../../src/tools/index.js";
import { hiddenPlacesDecider } from "../support/hidden-places-decider.js";
import { makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** A workspace with `secret/creds.txt`, a file whose name holds colons, and `link` → the workspace. */
async function contextWithRule(rule: string): Promise<ToolContext> {
  await mkdir(join(directory, "secret"));
  await writeFile(join(directory, "secret", "creds.txt"), "token hunter2\n");
  await writeFile(join(directory, "a:1:b.txt"), "token public\n");
  await symlink(directory, join(directory, "link"));
  const hidden = hiddenPaths([parseRule(rule)], "grep", directory, await realpath(directory));
  return makeContext(directory, hidden === undefined ? {} : { hidden });
}

describe("searches leave out the files the path deny rules hide (ToolContext.hidden)", () => {
  it("grep with ripgrep and with the JavaScript search, also through a link to the folder", async () => {
    const context = await contextWithRule("view(secret/**)");
    const content = { pattern: "token", output_mode: "content" };
    const answers = await Promise.all([
      runTool(grepTool, content, context),
      runGrep(grepTool.input.parse(content), context, join(directory, "no-rg")),
      runTool(grepTool, { ...content, path: "link" }, context),
      runGrep(
        grepTool.input.parse({ ...content, path: "link" }),
        context,
        join(directory, "no-rg"),
      ),
    ]);
    expect(answers.map((answer) => answer.content)).toEqual([
      "a:1:b.txt:1:token public",
      "a:1:b.txt:1:token public",
      "link/a:1:b.txt:1:token public",
      "link/a:1:b.txt:1:token public",
    ]);
  });

  it("glob and view of a folder, also through a link to the folder", async () => {
    const context = await contextWithRule("glob(secret/*.txt)");
    const answers = await Promise.all([
      runTool(globTool, { pattern: "**/*.txt" }, context),
      runTool(globTool, { pattern: "**/*.txt", path: "link" }, context),
      runTool(viewTool, { path: "link/secret" }, context),
    ]);
    expect(answers.map((answer) => answer.content)).toEqual([
      "./a:1:b.txt",
      "./link/a:1:b.txt",
      "(empty directory)",
    ]);
  });

  it("rules of bash or of the editing tools hide nothing from a search", async () => {
    for (const rule of ["bash(secret/**)", "edit(secret/**)", "create(**)", "view"]) {
      expect(hiddenPaths([parseRule(rule)], "grep", "/w", "/w"), rule).toBeUndefined();
    }
    expect(hiddenPaths([parseRule("view(**)")], "bash", "/w", "/w")).toBeUndefined();
  });
});

describe("a search judges each file once against what is hidden, not each line (trial 32, F1)", () => {
  it("grep in content mode asks about each file whose lines it found once", async () => {
    const context = await contextWithRule("view(secret/**)");
    const lines = Array.from({ length: 500 }, (_, index) => `token ${index + 1}`);
    await writeFile(join(directory, "many.txt"), `${lines.join("\n")}\n`);
    await writeFile(join(directory, "secret", "more.txt"), `${lines.join("\n")}\n`);
    const judged: string[] = [];
    const hidden = context.hidden;
    const counting: ToolContext = {
      ...context,
      hidden: (path) => {
        judged.push(path);
        return hidden?.(path) ?? false;
      },
    };
    const answer = await runTool(
      grepTool,
      { pattern: "token", output_mode: "content", head_limit: 2 },
      counting,
    );
    expect(answer.content).toBe(
      "a:1:b.txt:1:token public\nmany.txt:1:token 1\n" +
        "[Showing 2 of 501 lines; 499 left out. Raise head_limit or narrow path/glob to see more.]",
    );
    expect(judged).toEqual(
      ["a:1:b.txt", "many.txt", "secret/creds.txt", "secret/more.txt"].map((path) =>
        join(directory, path),
      ),
    );
  });
});

// The hidden places (permissions/hidden-places.ts) as the decider hands them to a search: a grep
// of a folder that no hidden place lies in or holds (a project, the usual case) is given no test
// at all, so it judges no file (each matching file was judged, trial 32); a hidden place inside
// the folder searched stays out of every output mode, each file judged once.
describe("grep and the hidden places, through the permission decision", () => {
  /** `project` (cwd) with `a.txt`, `sub/b.txt` and the hidden place `vault`; `outside/.ssh` hidden. */
  async function layout(): Promise<{
    project: string;
    decide: ReturnType<typeof hiddenPlacesDecider>;
  }> {
    const project = join(directory, "project");
    await mkdir(join(project, "sub"), { recursive: true });
    await mkdir(join(project, "vault"));
    await mkdir(join(directory, "outside", ".ssh"), { recursive: true });
    await writeFile(join(project, "a.txt"), "token public\n");
    await writeFile(join(project, "sub", "b.txt"), "token sub\n");
    await writeFile(join(project, "vault", "key.txt"), "token secret\n");
    await writeFile(join(project, "vault", "more.txt"), "token secret too\n");
    await writeFile(join(directory, "outside", ".ssh", "id"), "token key\n");
    await writeFile(join(directory, "outside", "notes.txt"), "token outside\n");
    const places = [join(project, "vault"), join(directory, "outside", ".ssh")];
    return { project, decide: hiddenPlacesDecider(project, { places }, grepTool) };
  }

  it("gives a grep of a folder without a hidden place no test to run", async () => {
    const { decide } = await layout();
    const decisions = await Promise.all([
      decide({ pattern: "token", path: "sub" }),
      decide({ pattern: "token", path: "a.txt" }),
      decide({ pattern: "token", path: join(directory, "outside") }),
      decide({ pattern: "token" }),
    ]);
    expect(decisions.map((each) => [each.kind, "hidden" in each])).toEqual([
      ["allow", false],
      ["allow", false],
      ["allow", true],
      ["allow", true],
    ]);
  });

  it("keeps a hidden place inside the folder out of every output mode, each file judged once", async () => {
    const { project, decide } = await layout();
    const decision = await decide({ pattern: "token" });
    const hidden = decision.kind === "allow" ? decision.hidden : undefined;
    const judged: string[] = [];
    const context = makeContext(project, {
      hidden: (path) => {
        judged.push(path);
        return hidden?.(path) ?? false;
      },
    });
    const answers = [];
    for (const output_mode of ["content", "files_with_matches", "count"]) {
      answers.push((await runTool(grepTool, { pattern: "token", output_mode }, context)).content);
    }
    expect(answers).toEqual([
      "a.txt:1:token public\nsub/b.txt:1:token sub",
      "a.txt\nsub/b.txt",
      "a.txt:1\nsub/b.txt:1",
    ]);
    const eachFile = ["a.txt", "sub/b.txt", "vault/key.txt", "vault/more.txt"];
    expect(judged).toEqual(
      [...eachFile, ...eachFile, ...eachFile].map((path) => join(project, path)),
    );
  });

  it("the JavaScript search, like ripgrep, finds nothing above its folder through a glob", async () => {
    const { project } = await layout();
    const context = makeContext(project);
    const options = grepTool.input.parse({ pattern: "token", glob: "../outside/*.txt" });
    const answers = await Promise.all([
      runGrep(options, context, join(directory, "no-rg")),
      runGrep(options, context),
    ]);
    expect(answers.map((answer) => answer.content)).toEqual([
      "No matches found.",
      "No matches found: no files were searched (the path holds no files, or every file is ignored, hidden or left out by the glob).",
    ]);
  });
});
