import { describe, expect } from "vitest";
import { McpServers } from "../../src/tools/mcp/servers.js";
import { test } from "../support/fixtures.js";
import { stdioServer } from "../support/mcp/servers.js";

// Trial 38, finding F2: a call of a tool of a server still starting waited a minute with nothing
// said, its `tool.execution_start` was written only at the end (a 0 ms call after a long gap in
// the log), and a server that never answered failed with the MCP SDK's bare "Request timed out".
// The -p face's part is in unavailable-tools.test.ts ("while the server is still starting").

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
      expect(waits).toEqual([
        { serverName: "mute", message: "waiting for MCP server mute to start (at most 0.3 s)" },
      ]);
      expect(answer).toBe(
        "MCP server mute failed to start: initialize got no answer within 0.3 s (the connect timeout); its tools are unavailable until it is started again (resuming the session starts it anew)",
      );
    } finally {
      await servers.close();
    }
  });
});
