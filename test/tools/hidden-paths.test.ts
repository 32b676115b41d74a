import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hiddenPaths, parseRule } from "../../src/permissions/permission-rules.js";
import type { ToolContext } from "../../src/tools/define-tool.js";
import { runGrep } from "../../src/tools/grep.js";
import { globTool, grepTool, viewTool } from "../../src/tools/index.js";
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
