/** The set-up test/tools/mcp*.test.ts share: a harness with MCP servers started in its session. */

import { join } from "node:path";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import type { McpServerConfigs } from "../../src/tools/mcp/config.js";
import type { McpServers } from "../../src/tools/mcp/servers.js";
import type { CliFixtures } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";

/** The state `servers` lists for server `name`. */
export function stateOf(servers: McpServers, name: string): string | undefined {
  return servers.list().find((server) => server.name === name)?.state;
}

/** A harness whose session has the servers `configure(logFile)` gives (`logFile` in its cwd). */
export async function withServers(
  openHarness: CliFixtures["openHarness"],
  configure: (log: string) => McpServerConfigs,
  options: { wire?: "openai-chat" | "anthropic"; startupWaitMs?: number } = {},
): Promise<{ harness: Harness; servers: McpServers; log: string }> {
  const harness = await openHarness(options.wire === undefined ? {} : { wire: options.wire });
  const log = join(harness.cwd, "server.log");
  const started = await startMcpServers(harness.session, configure(log), {
    env: process.env,
    startupWaitMs: options.startupWaitMs ?? 10_000,
  });
  if (started === undefined) {
    throw new Error("no servers started");
  }
  return { harness, servers: started, log };
}

/** A model reply calling tool `name` with `args`. */
export function call(name: string, args: object = {}, id = "call_1") {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}
