import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { McpServers } from "../../src/tools/mcp/servers.js";
import { test } from "../support/fixtures.js";
import { stdioEntry, stdioServer } from "../support/mcp/servers.js";

// Trial 38, finding F2: a call of a tool of a server still starting waited a minute with nothing
// said, its `tool.execution_start` was written only at the end (a 0 ms call after a long gap in
// the log), and a server that never answered failed with the MCP SDK's bare "Request timed out".

function call(id: string, name: string, args: object = {}) {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}

describe("a call of a tool of an MCP server still starting", () => {
  test("-p: the call starts at once and says it waits for the server; it runs once the server is up", async ({
    cli,
    model,
    repository,
    home,
    loggedEvents,
  }) => {
    const gate = join(repository, "gate");
    const config = join(repository, "servers.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { slow: stdioEntry("--start-gate", gate) } }),
    );
    model.enqueue(call("call_1", "slow__echo", { text: "y" }), { text: "Done." });
    let stderr = "";
    const waitLine = "slow__echo: waiting for MCP server slow to start (at most 60 s)";
    const running = cli(["-p", "go", "--allow-all-tools", "--mcp-config", config], {
      env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "0" },
      onStart: (child) => {
        child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
        });
      },
    });
    // Gate: the wait is said while the server is still held back.
    await expect.poll(() => stderr, { timeout: 30_000 }).toContain(waitLine);
    await writeFile(gate, "");
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Done.\n");
    const [sessionId] = await readdir(join(home, "session-state"));
    const events = await loggedEvents(sessionId ?? "");
    const start = events.find((event) => event.type === "tool.execution_start");
    // The start is logged when the call starts, with its server, not at the end.
    expect(start?.data).toEqual({
      toolCallId: "call_1",
      toolName: "slow__echo",
      arguments: { text: "y" },
      mcpServerName: "slow",
    });
    expect(
      events
        .filter((event) => event.type.startsWith("tool.") || event.type.startsWith("permission."))
        .map((event) => event.type),
    ).toEqual(["tool.execution_start", "tool.execution_complete"]);
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: true, result: { content: "echo: y" } });
    // The line's duration counts the wait: not the 0 ms of a call started at its end.
    expect(result.stderr).not.toMatch(/✓ slow__echo .*\(0 ms\)/);
  });

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
