import { createServer } from "node:http";
import { describe, expect } from "vitest";
import { McpServers } from "../../src/tools/mcp/servers.js";
import { test } from "../support/fixtures.js";
import { stdioServer } from "../support/mcp/servers.js";

// Trial 38, finding F2: a call of a tool of a server still starting waited a minute with nothing
// said, its `tool.execution_start` was written only at the end (a 0 ms call after a long gap in
// the log), and a server that never answered failed with the MCP SDK's bare "Request timed out".
// The -p face's part is in unavailable-tools.test.ts ("while the server is still starting").
// Session 43, F7: the connect timeout bounded each request of the attempt, not the attempt, so a
// call could wait far past it, and for ever on an http server that takes the connection and never
// answers (the HTTP+SSE fallback's GET has no timeout of its own). Now the attempt as a whole ends
// at the connect timeout, a call waits only for what is left of it, and once the attempt is over
// every call is answered at once with why.

/** What is left of a wait, in the words of a call waiting, masked (it depends on the clock). */
function masked(wait: { serverName: string; message: string }) {
  return { ...wait, message: wait.message.replace(/at most [\d.]+ s more/, "at most N s more") };
}

describe("a call of a tool of an MCP server still starting", () => {
  test("a server that never answers: the call says what timed out, in README's words", async () => {
    const servers = new McpServers(
      { mute: stdioServer("--never-initialize") },
      { cwd: process.cwd(), env: {}, version: "0.0.0", startupWaitMs: 0, connectTimeoutMs: 300 },
    );
    const waits: Array<{ serverName: string; message: string }> = [];
    try {
      const answer = await servers.unavailableTool(
        "mute__echo",
        new AbortController().signal,
        [],
        (wait) => waits.push(wait),
      );
      expect(waits.map(masked)).toEqual([
        {
          serverName: "mute",
          message: "waiting for MCP server mute to start (at most N s more)",
        },
      ]);
      expect(answer).toBe(
        "MCP server mute failed to start: initialize got no answer within 0.3 s (the connect timeout); its tools are unavailable until it is started again (resuming the session starts it anew)",
      );
    } finally {
      await servers.close();
    }
  });

  test("an http server that takes the connection and never answers: the call ends with the attempt, the next one at once", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const servers = new McpServers(
      { h: { type: "http", url: `http://127.0.0.1:${port}/mcp`, headers: {} } },
      { cwd: process.cwd(), env: {}, version: "0.0.0", startupWaitMs: 0, connectTimeoutMs: 300 },
    );
    const waits: Array<{ serverName: string; message: string }> = [];
    const call = () =>
      servers.unavailableTool("h__echo", new AbortController().signal, [], (wait) =>
        waits.push(wait),
      );
    try {
      const failed =
        "MCP server h failed to start: initialize got no answer within 0.3 s (the connect timeout); its tools are unavailable until it is started again (resuming the session starts it anew)";
      expect(await call()).toBe(failed);
      expect(await call()).toBe(failed);
      // Only the first call waited: the second came after the attempt was over.
      expect(waits.map(masked)).toEqual([
        {
          serverName: "h",
          message: "waiting for MCP server h to start (at most N s more)",
        },
      ]);
    } finally {
      await servers.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
