import { describe, expect } from "vitest";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import { JsonLineReader } from "../../src/tools/mcp/line-reader.js";
import { test } from "../support/fixtures.js";
import { types } from "../support/harness.js";
import { stdioServer } from "../support/mcp/servers.js";

describe("an MCP answer over the read limit (issue 27, item 2)", () => {
  test("a 20 MB result fails its call at once with the size and the limit; the server goes on", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    // The default call timeout (10 minutes) stays: only the size check can end this call in time.
    const servers = await startMcpServers(
      harness.session,
      { t: stdioServer() },
      { env: process.env, startupWaitMs: 30_000 },
    );
    expect(servers).toBeDefined();
    const call = (id: string, name: string, args: object) => ({
      toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
    });
    harness.server.enqueue(
      call("call_1", "t__big", { chars: 20_000_000 }),
      call("call_2", "t__echo", { text: "still here" }),
      { text: "done" },
    );
    expect(await harness.prompt("a huge answer")).toEqual({ stopReason: "end_turn" });
    const results = harness.events.flatMap((event) =>
      event.type === "tool.execution_complete" ? [event.data] : [],
    );
    expect(results).toEqual([
      {
        toolCallId: "call_1",
        toolName: "t__big",
        success: false,
        result: { content: expect.any(String) },
        error: { code: "failed", message: expect.any(String) },
      },
      {
        toolCallId: "call_2",
        toolName: "t__echo",
        success: true,
        result: { content: "echo: still here" },
      },
    ]);
    expect(results[0]?.result.content).toMatch(
      /^MCP tool t\/big failed: .*the MCP server's answer is 200000\d\d bytes, over turnloop's limit of 10485760 bytes for one message/,
    );
    expect(types(harness.events).filter((type) => type.startsWith("session.mcp"))).toEqual([
      "session.mcp_server_status_changed",
    ]);
    await servers?.close();
  }, 120_000);
});

describe("JsonLineReader", () => {
  test("finds the id of a dropped line at either end, however the bytes are split", () => {
    const reader = new JsonLineReader(64);
    const leading = `{"jsonrpc":"2.0","id":"a\\"b","result":{"text":"${"x".repeat(300)}"}}\n`;
    const trailing = `{"result":{"text":"${"y".repeat(300)}"},"jsonrpc":"2.0","id":7}\r\n`;
    const small = `{"jsonrpc":"2.0","id":8,"result":{}}\n`;
    const bytes = Buffer.from(leading + trailing + small);
    const lines = [];
    for (let start = 0; start < bytes.length; start += 37) {
      lines.push(...reader.push(bytes.subarray(start, start + 37)));
    }
    expect(lines).toEqual([
      { kind: "too_large", bytes: Buffer.byteLength(leading) - 1, id: 'a"b' },
      { kind: "too_large", bytes: Buffer.byteLength(trailing) - 1, id: 7 },
      { kind: "message", message: { jsonrpc: "2.0", id: 8, result: {} } },
    ]);
  });
});
