import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { TEST_SERVER } from "../support/mcp/servers.js";
import { AcpHarness } from "./support.js";

// An MCP tool's result with `isError: true` is a failed call in the editor: its last
// `tool_call_update` is `failed`, with the text the model got (test/tools/mcp-error-wires.test.ts:
// `MCP tool <server>/<tool> failed: <its text>` on every wire). In-process, with the real test
// server over stdio as the editor passes it in `session/new`.

describe("an MCP tool's isError result over ACP", () => {
  test("the editor shows the call failed, with what the model was told", async () => {
    const harness = await AcpHarness.start({ env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "60000" } });
    const { sessionId } = await harness.client.request(acp.methods.agent.session.new, {
      cwd: harness.cwd,
      mcpServers: [{ name: "t", command: process.execPath, args: [TEST_SERVER], env: [] }],
    });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__fail", arguments: "{}" }] },
      { text: "noted" },
    );
    expect(await harness.prompt(sessionId, "try")).toEqual({ stopReason: "end_turn" });
    const statuses = harness
      .updates(sessionId)
      .flatMap((update) =>
        update.sessionUpdate === "tool_call_update" && update.status != null ? [update] : [],
      );
    expect(statuses).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "failed",
        rawOutput: { outcome: "failed", error: "failed" },
        content: [
          {
            type: "content",
            content: { type: "text", text: "MCP tool t/fail failed: the widget is broken" },
          },
        ],
      },
    ]);
  });
});
