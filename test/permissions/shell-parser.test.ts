import { createRequire } from "node:module";
import type { ShellSyntax } from "mvdan-sh";
import { expect, test } from "vitest";
import { parseRule, rulesCover, unclearParts } from "../../src/permissions/permission-rules.js";
import { statusProgram } from "../../src/permissions/status-command.js";

// Issue 26, round 3 session 41: every bash text is parsed by one mvdan-sh parser
// (shell-commands.ts `parseShell`); making one per parse cost about twice the parse of a short
// command (bench/notes/server41.md). The parser's constructor is counted through the package's own
// object, the one the module loads (Node's require cache), and still runs.
const { syntax } = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShellSyntax };

test("one parser for every command read, the commands read as before, a nested script and a bad one included", () => {
  const newParser = syntax.NewParser.bind(syntax);
  let made = 0;
  syntax.NewParser = () => {
    made += 1;
    return newParser();
  };
  try {
    const rules = ["bash(npx vitest *)", "bash(echo *)"].map(parseRule);
    const cwd = "/work/project";
    const covered = (command: string) =>
      rulesCover(rules, { toolName: "bash", paths: [], command }, cwd);
    expect([
      covered("npx vitest run a.test.ts"),
      covered("echo 'unterminated"),
      covered("npx vitest run b.test.ts && rm -rf ~"),
      covered("npx -y bash -c 'rm -rf ~'"),
      covered("echo ok | grep ok"),
      covered("echo ok"),
      unclearParts("echo 'unterminated"),
      statusProgram("npx vitest run; curl -f x"),
    ]).toEqual([
      true,
      false,
      false,
      false,
      false,
      true,
      ["not valid bash (reached EOF without closing quote ')"],
      "curl",
    ]);
    // None when an earlier test of the same process made the one parser (the in-process pool).
    expect(made).toBeLessThanOrEqual(1);
  } finally {
    syntax.NewParser = newParser;
  }
});
