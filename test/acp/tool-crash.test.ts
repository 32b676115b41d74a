import { expect, test } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import { AcpHarness, requestMessages } from "./support.js";

// Case 01, variant B, over ACP: a tool whose implementation throws (a spawn failure) still gets
// exactly one result, an error one: the client sees the call end failed with the error, the
// model's next request pairs the call with that result, and the prompt goes on to end_turn.

const launcher = defineTool({
  name: "launch",
  description: "Starts a helper program.",
  input: z.object({ program: z.string() }),
  kind: "execute",
  mutates: false,
  execute: async ({ program }) => {
    throw new Error(`spawn ${program} ENOENT`);
  },
});

test("case 01 B over ACP: a tool that throws ends failed with its error, the model hears it, the turn goes on", async () => {
  const harness = await AcpHarness.start({ extraTools: [launcher] });
  const call = {
    id: "call_1",
    name: "launch",
    arguments: JSON.stringify({ program: "/nonexistent/binary" }),
  };
  harness.server.enqueue({ toolCalls: [call] }, { text: "ok" });
  const sessionId = await harness.newSession();
  expect(await harness.prompt(sessionId, "launch it")).toEqual({ stopReason: "end_turn" });
  const failed = "Tool 'launch' failed: spawn /nonexistent/binary ENOENT";
  const told = harness
    .updates(sessionId)
    .filter((update) => "toolCallId" in update || update.sessionUpdate === "agent_message_chunk")
    .map((update) => {
      const { messageId: _messageId, ...rest } = update as typeof update & { messageId?: string };
      return rest;
    });
  expect(told).toEqual([
    {
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "launch",
      kind: "execute",
      status: "pending",
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      title: "launch",
      kind: "execute",
      rawInput: { program: "/nonexistent/binary" },
      locations: [],
    },
    { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: failed } }],
      rawOutput: { error: "failed", outcome: "failed" },
    },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } },
  ]);
  // The next request pairs the call with its error result.
  expect(requestMessages(harness.server, -1).slice(1)).toEqual([
    { role: "user", content: "launch it" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "launch", arguments: call.arguments } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: failed },
  ]);
  const events = await harness.persisted(sessionId);
  expect(
    events.map((event) => (event.type === "tool.execution_complete" ? event.data : event.type)),
  ).toEqual([
    "session.start",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.usage",
    "tool.execution_start",
    {
      toolCallId: "call_1",
      toolName: "launch",
      success: false,
      result: { content: failed },
      error: { message: failed, code: "failed" },
    },
    "assistant.turn_end",
    "assistant.turn_start",
    "assistant.message",
    "assistant.usage",
    "assistant.turn_end",
  ]);
});
