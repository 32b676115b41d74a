import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { terminalPermission } from "../../src/cli/terminal-permission.js";
import type { PermissionRequest } from "../../src/permissions/permission-decision.js";

const REQUEST: PermissionRequest = {
  requestId: "r1",
  toolCallId: "c1",
  toolName: "bash",
  kind: "execute",
  title: "Run git log --oneline",
  rawInput: { command: "git log --oneline" },
  paths: ["/repo"],
  command: "git log --oneline",
  alwaysRule: "bash(git log --oneline)",
};

async function answer(
  typed: string | undefined,
  signal = new AbortController().signal,
  request = REQUEST,
) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  const reply = terminalPermission(input, output, () => undefined)(request, signal);
  if (typed === undefined) {
    input.end();
  } else {
    input.write(`${typed}\n`);
  }
  return { reply: await reply, shown };
}

describe("the terminal question", () => {
  test.each([
    ["y", { decision: "allow", scope: "once" }],
    ["a", { decision: "allow", scope: "session" }],
    ["always", { decision: "allow", scope: "session" }],
    ["n", { decision: "deny", scope: "once", reason: "the user said no" }],
  ] as const)("typing %s answers %j", async (typed, expected) => {
    expect((await answer(typed)).reply).toEqual(expected);
  });

  test("a line that is none of the answers is asked again, naming the keys, not taken as a no", async () => {
    const { reply, shown } = await answer("whatever\n\nn");
    expect(reply).toEqual({ decision: "deny", scope: "once", reason: "the user said no" });
    expect(shown.split("> ").slice(1)).toEqual([
      '"whatever" is not an answer; type y, a, n or t ',
      '"" is not an answer; type y, a, n or t ',
      "",
    ]);
  });

  test("a command with a prefix offers it, says what it leaves out, and 'p' grants it", async () => {
    const request: PermissionRequest = {
      ...REQUEST,
      title: "Run npx tape 'test/*.js' | tail -5",
      rawInput: { command: "npx tape 'test/*.js' | tail -5" },
      command: "npx tape 'test/*.js' | tail -5",
      alwaysRule: "bash(npx tape 'test/*.js' | tail -5)",
      prefix: { rule: "bash(npx tape *)", notCovered: ["tail -5"] },
    };
    const { reply, shown } = await answer("p", undefined, request);
    expect(reply).toEqual({ decision: "allow", scope: "session", rule: "bash(npx tape *)" });
    expect(shown).toBe(
      [
        "",
        "turnloop wants to run npx tape 'test/*.js' | tail -5",
        "    $ npx tape 'test/*.js' | tail -5",
        "  [y] yes, once   [a] yes, always for bash(npx tape 'test/*.js' | tail -5) in this session   [p] yes, always for bash(npx tape *) in this session (tail -5 still asks)   [n] no   [t] no, and tell the model why",
        "> ",
      ].join("\n"),
    );
    // Without a prefix on offer, "p" is no answer: it is asked again, as any other key is.
    const without = await answer("p\ny");
    expect(without.reply).toEqual({ decision: "allow", scope: "once" });
    expect(without.shown).toContain('"p" is not an answer; type y, a, n or t > ');
  });

  test("shows what is asked and what 'always' would allow", async () => {
    const { shown } = await answer("y");
    expect(shown).toBe(
      "\nturnloop wants to run git log --oneline\n    $ git log --oneline\n  [y] yes, once   [a] yes, always for bash(git log --oneline) in this session   [n] no   [t] no, and tell the model why\n> ",
    );
  });

  test("a command under a sandbox policy says where it runs (issue 23)", async () => {
    const { shown } = await answer("y", undefined, {
      ...REQUEST,
      sandbox: { policy: "workspace-write", network: false },
    });
    expect(shown).toBe(
      "\nturnloop wants to run git log --oneline\n    $ git log --oneline\n    [sandbox: workspace-write, no network]\n  [y] yes, once   [a] yes, always for bash(git log --oneline) in this session   [n] no   [t] no, and tell the model why\n> ",
    );
  });

  // Trial of round 3 session 36 (P1-4): `a` was offered here, but a yes counts for that call
  // alone (permission-gate.ts createSandboxExitAsker), so it was logged `once` and asked again.
  test("asking to run a stopped command outside the sandbox shows the reason and offers no 'always'", async () => {
    const reason = "the sandbox has no network (Could not resolve host)";
    const { reply, shown } = await answer("a\ny", undefined, {
      ...REQUEST,
      title: "Run outside the sandbox: git fetch",
      command: "git fetch",
      sandbox: { policy: "danger-full-access", network: true, outsideReason: reason },
    });
    expect(reply).toEqual({ decision: "allow", scope: "once" });
    expect(shown.split("\n")).toEqual([
      "",
      "turnloop wants to run outside the sandbox: git fetch",
      "    $ git fetch",
      `    [outside the sandbox: ${reason}]`,
      "  [y] yes, once   [n] no   [t] no, and tell the model why",
      '> "a" is not an answer; type y, n or t > ',
    ]);
  });

  test("an MCP call names its server, tool and title, and shows its arguments", async () => {
    const { shown } = await answer("y", undefined, {
      requestId: "r2",
      toolCallId: "c2",
      toolName: "github__create_issue",
      kind: "other",
      title: "github: Create issue",
      rawInput: { title: "Crash on start", labels: ["bug"] },
      paths: [],
      alwaysRule: "mcp(github__create_issue)",
      mcp: {
        serverName: "github",
        toolName: "create_issue",
        qualifiedName: "github__create_issue",
      },
    });
    expect(shown).toBe(
      [
        "",
        "turnloop wants to run github's create_issue (Create issue)",
        "    {",
        '      "title": "Crash on start",',
        '      "labels": [',
        '        "bug"',
        "      ]",
        "    }",
        "  [y] yes, once   [a] yes, always for mcp(github__create_issue) in this session   [n] no   [t] no, and tell the model why",
        "> ",
      ].join("\n"),
    );
  });

  test("end of input cancels the prompt (it is no answer, not a no); after 't' it is a no; a cancel answers cancelled", async () => {
    const outcomes = [];
    for (const typed of [undefined, "t\n"]) {
      const input = new PassThrough();
      let cancels = 0;
      const pending = terminalPermission(input, new PassThrough(), () => {
        cancels++;
      })(REQUEST, new AbortController().signal);
      input.end(typed);
      outcomes.push({ reply: await pending, cancels });
    }
    expect(outcomes).toEqual([
      { reply: { decision: "cancelled" }, cancels: 1 },
      { reply: { decision: "deny", scope: "once", reason: "the user said no" }, cancels: 0 },
    ]);
    const controller = new AbortController();
    const input = new PassThrough();
    const pending = terminalPermission(
      input,
      new PassThrough(),
      () => undefined,
    )(REQUEST, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ decision: "cancelled" });
  });
});
