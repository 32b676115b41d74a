import { describe, expect } from "vitest";
import { TerminalRenderer } from "../../src/cli/terminal-renderer.js";
import type { JsonValue } from "../../src/events/events.js";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import { test } from "../support/fixtures.js";
import type { MODEL_FOR_WIRE } from "../support/harness.js";
import { stdioServer } from "../support/mcp/servers.js";

// A trial on an OpenAI-compatible model: an MCP tool's result with `isError: true` reached the
// model as the server's bare text ("the widget is broken"), which reads like a success. Only
// Anthropic's `tool_result` has a flag (`is_error`); OpenAI Chat's `tool` message and Responses'
// `function_call_output` carry text alone (Codex sends such a result as its JSON, `"isError":true`
// included). turnloop's own failed tools say so in their text on every wire (`Tool 'x' failed:
// …`, `MCP tool s/t failed: …` for a call that threw, `Path … does not exist.`), with `is_error`
// on Anthropic's; an MCP failure now does the same: `MCP tool t/fail failed: <its text>`. The
// server is the real test server over stdio; the bodies are those the fake model received.

type Wire = keyof typeof MODEL_FOR_WIRE;

const FAILED = "MCP tool t/fail failed: the widget is broken";

/** The tool results of the request body `body` on `wire`, as that wire writes them. */
function toolResults(wire: Wire, body: JsonValue | undefined): unknown[] {
  const object = body as Record<string, Array<Record<string, unknown>>>;
  switch (wire) {
    case "openai-chat":
      return (object.messages ?? []).filter((message) => message.role === "tool");
    case "openai-responses":
      return (object.input ?? []).filter((item) => item.type === "function_call_output");
    case "anthropic":
      return (object.messages ?? [])
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .filter((part: { type?: string }) => part.type === "tool_result");
  }
}

const EXPECTED: Record<Wire, unknown[]> = {
  "openai-chat": [
    { role: "tool", tool_call_id: "call_1", content: FAILED },
    { role: "tool", tool_call_id: "call_2", content: "echo: fine" },
  ],
  "openai-responses": [
    { type: "function_call_output", call_id: "call_1", output: FAILED },
    { type: "function_call_output", call_id: "call_2", output: "echo: fine" },
  ],
  anthropic: [
    { type: "tool_result", tool_use_id: "call_1", content: FAILED, is_error: true },
    // The request's last block: its prompt-cache breakpoint (llm/cache-breakpoints.ts).
    {
      type: "tool_result",
      tool_use_id: "call_2",
      content: "echo: fine",
      cache_control: { type: "ephemeral" },
    },
  ],
};

describe.for(Object.keys(EXPECTED) as Wire[])("an MCP tool's isError result on %s", (wire) => {
  test("reaches the model said failed, as turnloop's own failures are, and is recorded failed", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire });
    // The prompt waits for the server to start (startupWaitMs).
    await startMcpServers(
      harness.session,
      { t: stdioServer() },
      {
        env: process.env,
        startupWaitMs: 10_000,
      },
    );
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "t__fail", arguments: "{}" },
          { id: "call_2", name: "t__echo", arguments: '{"text":"fine"}' },
        ],
      },
      { text: "noted" },
    );
    expect(await harness.prompt("try")).toEqual({ stopReason: "end_turn" });
    expect(
      toolResults(wire, harness.server.requests[1]?.body).map((result) =>
        // Chat's and Anthropic's results hold no more than this; Responses' items an id too.
        Object.fromEntries(Object.entries(result as object).filter(([key]) => key !== "id")),
      ),
    ).toEqual(EXPECTED[wire]);
    const completed = harness.events.flatMap((event) =>
      event.type === "tool.execution_complete" ? [event.data] : [],
    );
    expect(completed).toEqual([
      {
        toolCallId: "call_1",
        toolName: "t__fail",
        success: false,
        result: { content: FAILED },
        error: { message: FAILED, code: "failed" },
      },
      {
        toolCallId: "call_2",
        toolName: "t__echo",
        success: true,
        result: { content: "echo: fine" },
      },
    ]);
    // `-p` draws the recorded events: the failed call's line is ✗.
    let stderr = "";
    const renderer = new TerminalRenderer(
      { write: () => true },
      { write: (text) => (stderr += text) },
      false,
    );
    for (const event of harness.events) {
      renderer.handle(event);
    }
    expect(stderr.split("\n").filter((line) => /^[✓✗]/.test(line))).toEqual([
      expect.stringMatching(/^✗ t__fail .*failed/),
      expect.stringMatching(/^✓ t__echo /),
    ]);
  });
});
