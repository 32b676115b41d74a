import { describe, expect, test } from "vitest";
import { taskCompleteTool } from "../../src/agent/autopilot.js";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { BUILT_IN_TOOL_NAMES } from "../../src/permissions/permission-mode.js";
import { builtinTools } from "../../src/tools/index.js";

describe("the tool names of rules from flags and config files (trial finding 17)", () => {
  test("the names the rules know are those of the built-in tools, task_complete and mcp", () => {
    expect(BUILT_IN_TOOL_NAMES).toEqual([
      ...builtinTools().map((tool) => tool.name),
      taskCompleteTool.name,
      "mcp",
    ]);
  });

  test.each<[string, string]>([
    ["Bash(rm *)", "did you mean bash(rm *)?"],
    ["BASH", "did you mean bash?"],
    ["shell(rm)", "did you mean bash(rm)?"],
    ["Read(src/**)", "did you mean view(src/**)?"],
    ["Write(notes.md)", "did you mean create(notes.md) or edit(notes.md)?"],
    ["Edit", "did you mean edit?"],
    ["MCP(github)", "did you mean mcp(github)?"],
  ])("%s is refused: %s", (rule, hint) => {
    expect(() => parseRules([rule])).toThrow(hint);
  });

  test("turnloop's names, MCP tools and an app's own tools are accepted", () => {
    const rules = parseRules(["bash(git status)", "mcp(github)", "github__create_issue", "deploy"]);
    expect(rules.map((rule) => rule.tool)).toEqual([
      "bash",
      "mcp",
      "github__create_issue",
      "deploy",
    ]);
  });
});
