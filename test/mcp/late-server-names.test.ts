import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import {
  type PermissionReply,
  type PermissionRequest,
  parseRules,
} from "../../src/permissions/permission-decision.js";
import { createPermissionGate } from "../../src/permissions/permission-gate.js";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import { test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";
import { serverLog, stdioServer } from "../support/mcp/servers.js";

/**
 * Trial 42 finding 13: two servers whose tools clean to one name (`w_x` and `w.x` both give
 * `w_x__echo`), one connecting late. The name was handed out again by config order at each
 * listing, so `w_x__echo` meant w.x's echo, then w_x's once w_x connected, and the "always"
 * answer given for w.x's echo (recorded as `mcp(w_x__echo)`) ran w_x's echo unasked. Now a name
 * keeps its tool for the session (the late server's tool gets `_2`), and "always" is bound to
 * the server and the tool it was given for.
 */

/** Resolves once `holds()` is true of the session's events (a gate on what the session says). */
async function until(target: Harness, holds: () => boolean, what: string): Promise<void> {
  for (let polls = 0; polls < 1_000; polls++) {
    if (holds()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}; events: ${JSON.stringify(target.events)}`);
}

function connected(target: Harness, serverName: string): boolean {
  return target.events.some(
    (event) =>
      event.type === "session.mcp_server_status_changed" &&
      event.data.serverName === serverName &&
      event.data.status === "connected",
  );
}

/** The names of the servers' `echo` tools each model request offered. */
function offeredNames(target: Harness): string[][] {
  return target.server.requests.map((request) =>
    ((request.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [])
      .map((tool) => tool.function.name)
      .filter((name) => name.startsWith("w_x__echo")),
  );
}

test("a late server's tool never takes a name already offered; 'always' covers only the tool it was given for", async ({
  openHarness,
  home,
}) => {
  const target = await openHarness();
  const session = target.session;
  const gate = join(home, "late-server-may-start");
  const lateLog = join(home, "late.jsonl");
  const earlyLog = join(home, "early.jsonl");
  const asked: PermissionRequest[] = [];
  const answers: PermissionReply[] = [
    { decision: "allow", scope: "session" },
    { decision: "deny", scope: "once", reason: "not that server" },
  ];
  target.settings.authorize = createPermissionGate({
    cwd: target.cwd,
    policy: () => ({
      allowAllTools: false,
      allow: [...parseRules([]), ...session.grants.allow],
      deny: [...session.grants.deny],
      folders: [],
    }),
    ask: async (request) => {
      asked.push(request);
      return answers.shift() ?? { decision: "deny", scope: "once", reason: "no more answers" };
    },
    emit: (event) => void session.emit(event),
  });
  // Config order puts the late server first: the order the old naming went by.
  await startMcpServers(
    session,
    {
      w_x: stdioServer("--start-gate", gate, "--log", lateLog),
      "w.x": stdioServer("--log", earlyLog),
    },
    { env: process.env, startupWaitMs: 0 },
  );
  await until(target, () => connected(target, "w.x"), "w.x connected");

  target.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "w_x__echo", arguments: '{"text":"first"}' }] },
    { text: "one" },
  );
  await target.prompt("first");
  await writeFile(gate, "");
  await until(target, () => connected(target, "w_x"), "w_x connected");
  target.server.enqueue(
    { toolCalls: [{ id: "call_2", name: "w_x__echo", arguments: '{"text":"second"}' }] },
    { toolCalls: [{ id: "call_3", name: "w_x__echo_2", arguments: '{"text":"third"}' }] },
    { text: "two" },
  );
  await target.prompt("second");

  expect(offeredNames(target)).toEqual([
    ["w_x__echo"],
    ["w_x__echo"],
    // In config order: w_x's tool first, under the name left free.
    ["w_x__echo_2", "w_x__echo"],
    ["w_x__echo_2", "w_x__echo"],
    ["w_x__echo_2", "w_x__echo"],
  ]);
  expect(asked.map((request) => [request.toolName, request.title, request.alwaysRule])).toEqual([
    ["w_x__echo", "w.x: echo", 'mcp("w.x":"echo")'],
    ["w_x__echo_2", "w_x: echo", 'mcp("w_x":"echo")'],
  ]);
  expect(
    target.events.flatMap((event) =>
      event.type === "tool.execution_complete"
        ? [[event.data.toolCallId, event.data.success, event.data.result.content]]
        : event.type === "session.warning" && event.data.message.includes('"echo"')
          ? [[event.data.message]]
          : [],
    ),
  ).toEqual([
    ["call_1", true, "echo: first"],
    [
      'MCP server w_x: tool "echo" is offered as w_x__echo_2: w_x__echo is tool "echo" of server w.x',
    ],
    ["call_2", true, "echo: second"],
    ["call_3", false, "Permission denied for 'w_x__echo_2': not that server"],
  ]);
  const called = (file: string) => serverLog(file).flatMap((entry) => entry.text ?? []);
  expect({ early: called(earlyLog), late: called(lateLog) }).toEqual({
    early: ["first", "second"],
    late: [],
  });
});
