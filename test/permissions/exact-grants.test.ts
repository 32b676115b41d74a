import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type PermissionPolicy,
  parseRules,
  permissionDecider,
} from "../../src/permissions/permission-decision.js";
import { parseConfiguredRule } from "../../src/permissions/permission-mode.js";
import { bashTool, editTool } from "../../src/tools/index.js";
import { choose } from "../acp/client-handlers.js";
import { AcpHarness } from "../acp/support.js";

/**
 * The "always for that exact call" answer (interactive `a`, ACP's first "Always allow", and
 * `/permissions save`) records a rule that matches that call alone (trial finding 14): the
 * command's or path's pattern characters are escaped, and the rule reads the same back from a
 * config file.
 */
let cwd = "";
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "turnloop-exact-grants-"));
  await mkdir(join(cwd, "src"));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** The decision for one call of `tool` with `input` under `policy`. */
async function decide(
  tool: typeof bashTool | typeof editTool,
  input: Record<string, string>,
  policy: Partial<PermissionPolicy> = {},
) {
  const decider = permissionDecider(cwd, () => ({
    allowAllTools: false,
    allow: [],
    deny: [],
    folders: [],
    ...policy,
  }));
  const toolCall = { toolCallId: "call", name: tool.name, arguments: { ...input } };
  return decider({ tool, input, toolCall });
}

/** The rule an "always" answer to `command` records, as `/permissions save` writes and reads it. */
async function exactRule(command: string): Promise<string> {
  const decision = await decide(bashTool, { command });
  if (decision.kind !== "ask") {
    throw new Error(`${command} was not asked about`);
  }
  const saved = JSON.parse(JSON.stringify({ allow: [decision.question.alwaysRule] })) as {
    allow: string[];
  };
  return parseConfiguredRule(saved.allow[0] ?? "").text;
}

async function kind(command: string, rule: string): Promise<string> {
  return (await decide(bashTool, { command }, { allow: parseRules([rule]) })).kind;
}

describe("an exact-call grant of a command matches that command only", () => {
  test.each<[string, string, string[]]>([
    // The trial's case: `*` was the rule's "any text", so `-r victim x` fitted in it.
    ["rm -f *.o", "bash(rm -f \\*.o)", ["rm -f -r victim x.o", "rm -f a.o", "rm -f *.o b"]],
    ["ls *", "bash(ls \\*)", ["ls", "ls -la /", "ls * && rm -rf x"]],
    ["echo a\\*b", "bash(echo a\\\\\\*b)", ["echo a\\xb", "echo axb"]],
    [
      "find . -name x -exec rm {} \\;",
      "bash(find . -name x -exec rm {} \\\\;)",
      ["find . -delete"],
    ],
    ["rm -f *.o > log", "bash(rm -f \\*.o > log)", ["rm -f -r v x.o > log"]],
  ])("%j records %s, which does not cover %j", async (command, rule, others) => {
    expect(await exactRule(command)).toBe(rule);
    expect(await kind(command, rule)).toBe("allow");
    for (const other of others) {
      expect(await kind(other, rule), other).toBe("ask");
    }
  });

  test("an exact-call deny ('Always reject') refuses that command and not the others", async () => {
    const rule = await exactRule("rm -f *.o");
    const deny = { allowAllTools: true, deny: parseRules([rule]) };
    expect((await decide(bashTool, { command: "rm -f *.o" }, deny)).kind).toBe("deny");
    expect((await decide(bashTool, { command: "rm -f a.o" }, deny)).kind).toBe("allow");
  });

  test("a rule written with `*` keeps matching any text", async () => {
    expect(await kind("rm -f -r victim x.o", "bash(rm -f *.o)")).toBe("allow");
    expect(await kind("npm run build", "bash(npm run *)")).toBe("allow");
    expect(await kind("npm run", "bash(npm run *)")).toBe("allow");
  });
});

describe("an exact-call grant of a path matches that path only", () => {
  test.each<[string, string, string]>([
    ["src/a[1].ts", "edit(src/a\\[1\\].ts)", "src/a1.ts"],
    ["src/*.ts", "edit(src/\\*.ts)", "src/b.ts"],
    ["src/?.ts", "edit(src/\\?.ts)", "src/c.ts"],
    ["src/{a,b}.ts", "edit(src/\\{a,b\\}.ts)", "src/a.ts"],
    ["src/!(x).ts", "edit(src/\\!\\(x\\).ts)", "src/y.ts"],
  ])("%j records %s, which does not cover %s", async (path, rule, other) => {
    const input = { path, old_str: "a", new_str: "b" };
    const decision = await decide(editTool, input);
    expect(decision.kind === "ask" && decision.question.alwaysRule).toBe(rule);
    const allow = { allow: parseRules([rule]) };
    expect((await decide(editTool, input, allow)).kind).toBe("allow");
    expect((await decide(editTool, { ...input, path: other }, allow)).kind).toBe("ask");
  });
});

describe("ACP: 'Always allow' the exact call, then a call its `*` would have matched", () => {
  test("the second call is asked about and, rejected, leaves the marker uncreated", async () => {
    const harness = await AcpHarness.start();
    const allowAlways = choose("allow_always");
    let answers = 0;
    harness.behaviour.answerPermission = async (params) =>
      answers++ === 0
        ? allowAlways(params)
        : { outcome: { outcome: "selected", optionId: "reject_once" } };
    await writeFile(join(harness.cwd, "x.m"), "");
    const bash = (id: string, command: string) => ({
      toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
    });
    harness.server.enqueue(
      bash("call_X1", "touch *.m"),
      bash("call_X2", "touch marker x.m"),
      bash("call_X3", "touch *.m"),
      { text: "done" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "touch them")).toEqual({ stopReason: "end_turn" });
    const requests = harness.behaviour.calls.filter(
      (call) => call.method === "session/request_permission",
    );
    const names = requests.map(
      (call) => (call.params as { options: Array<{ name: string }> }).options[1]?.name,
    );
    // Asked for the first call and the second; the third is the granted call itself.
    expect(names).toEqual([
      "Always allow bash(touch \\*.m)",
      "Always allow bash(touch marker x.m)",
    ]);
    expect(existsSync(join(harness.cwd, "marker"))).toBe(false);
  });
});
