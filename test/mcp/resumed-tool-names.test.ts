import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import type { McpServerConfig } from "../../src/tools/mcp/config.js";
import { test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";

/**
 * Session 43, N1: a resumed session handed MCP tool names out again in the order its servers
 * connected, so a name in its history could name another server's tool: `a__b__c` was server
 * `a__b`'s tool `c`; after the resume server `a` connected first and its tool `b__c` got
 * `a__b__c`, and the model's next call of `a__b__c` ran it. The names of the calls in the log
 * (`tool.execution_start`: toolName, mcpServerName, mcpToolName) now keep their tools: `a`'s tool
 * gets `a__b__c_2`, with the warning a late server's renamed tool gets (late-server-names.test.ts).
 */

const SERVER = fileURLToPath(new URL("../support/mcp/listed-tools-server.mjs", import.meta.url));

function listing(toolName: string, gate?: string): McpServerConfig {
  const tools = [{ name: toolName, inputSchema: { type: "object" } }];
  const args = [SERVER, JSON.stringify(tools), ...(gate === undefined ? [] : [gate])];
  return { type: "stdio", command: process.execPath, args, env: {} };
}

/**
 * Resolves once server `serverName` has connected (a gate on what the session says), in the
 * events from index `since` on (the harness keeps the events of the session before its resume).
 */
async function connected(target: Harness, serverName: string, since = 0): Promise<void> {
  for (let polls = 0; polls < 1_000; polls++) {
    if (
      target.events
        .slice(since)
        .some(
          (event) =>
            event.type === "session.mcp_server_status_changed" &&
            event.data.serverName === serverName &&
            event.data.status === "connected",
        )
    ) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${serverName} never connected; events: ${JSON.stringify(target.events)}`);
}

/** The MCP tool names each model request offered. */
function offeredNames(target: Harness): string[][] {
  return target.server.requests.map((request) =>
    ((request.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [])
      .map((tool) => tool.function.name)
      .filter((name) => name.startsWith("a__")),
  );
}

test("a resumed session gives a name of its history to the same server's tool, whatever connects first", async ({
  openHarness,
  home,
}) => {
  const target = await openHarness();
  const options = { env: process.env, startupWaitMs: 0 };
  await startMcpServers(target.session, { a__b: listing("c") }, options);
  await connected(target, "a__b");
  target.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "a__b__c", arguments: "{}" }] },
    { text: "one" },
  );
  await target.prompt("first");

  const gate = join(home, "a__b-may-start");
  const since = target.events.length;
  const resumed = await target.reopen();
  await startMcpServers(resumed, { a__b: listing("c", gate), a: listing("b__c") }, options);
  await connected(target, "a", since);
  target.server.enqueue({ text: "two" });
  await target.prompt("second");
  await writeFile(gate, "");
  await connected(target, "a__b", since);
  target.server.enqueue(
    { toolCalls: [{ id: "call_2", name: "a__b__c", arguments: "{}" }] },
    { toolCalls: [{ id: "call_3", name: "a__b__c_2", arguments: "{}" }] },
    { text: "three" },
  );
  await target.prompt("third");

  expect(offeredNames(target)).toEqual([
    ["a__b__c"],
    ["a__b__c"],
    ["a__b__c_2"],
    ["a__b__c", "a__b__c_2"],
    ["a__b__c", "a__b__c_2"],
    ["a__b__c", "a__b__c_2"],
  ]);
  expect(
    target.events.flatMap((event) =>
      event.type === "tool.execution_complete"
        ? [[event.data.toolCallId, event.data.toolName, event.data.result.content]]
        : event.type === "session.warning" && event.data.message.startsWith("MCP server")
          ? [[event.data.message]]
          : [],
    ),
  ).toEqual([
    ["call_1", "a__b__c", "called c"],
    ['MCP server a: tool "b__c" is offered as a__b__c_2: a__b__c is tool "c" of server a__b'],
    ["call_2", "a__b__c", "called c"],
    ["call_3", "a__b__c_2", "called b__c"],
  ]);
});
