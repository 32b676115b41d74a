import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  ANSWER_TURN,
  LIVE_ANSWER_TURN,
  LIVE_TOOL_CALL,
  TOOL_TURN,
} from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";
import { shape, types } from "../support/harness.js";
import { readFileTool } from "../support/test-tools.js";

describe("the loop", () => {
  test("a text-only reply ends the prompt with end_turn and records every step", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue({ text: ["Hello", " there"], usage: { input: 12, output: 2 } });
    const outcome = await harness.prompt("hi");
    expect(outcome).toEqual({ stopReason: "end_turn" });
    expect(shape(harness.events)).toEqual([
      { type: "user.message", data: { content: "hi", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      { type: "assistant.message_delta", data: { messageId: "message-1", deltaContent: "Hello" } },
      { type: "assistant.message_delta", data: { messageId: "message-1", deltaContent: " there" } },
      {
        type: "assistant.message",
        data: {
          messageId: "message-1",
          content: "Hello there",
          toolRequests: [],
          finishReason: "stop",
        },
      },
      {
        type: "assistant.usage",
        data: {
          model: "openai-compatible:fake-model",
          turnId: "turn-1",
          inputTokens: 12,
          outputTokens: 2,
          cacheReadTokens: 0,
          reasoningTokens: 0,
        },
      },
      {
        type: "assistant.turn_end",
        // The prompt's last turn says how it stopped, for a process following the session.
        data: {
          turnId: "turn-1",
          status: "completed",
          finishReason: "stop",
          stopReason: "end_turn",
        },
      },
      { type: "session.idle", data: { stopReason: "end_turn" } },
    ]);
    const persisted = await harness.persisted();
    expect(types(persisted)).toEqual(["session.start", "user.message", ...ANSWER_TURN]);
    persisted.forEach((event, index) => {
      expect(event.parentId).toBe(index === 0 ? null : persisted[index - 1]?.id);
    });
  });

  test.for(["openai-chat", "anthropic", "openai-responses"] as const)(
    "runs a tool call and feeds the result back (%s)",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire, tools: [readFileTool] });
      await writeFile(join(harness.cwd, "a.txt"), "forty-two");
      harness.server.enqueue(
        {
          text: "Let me look.",
          toolCalls: [{ id: "call_1", name: "read_file", arguments: ['{"pa', 'th":"a.txt"}'] }],
        },
        { text: "It says forty-two." },
      );
      const outcome = await harness.prompt("what is in a.txt?");
      expect(outcome).toEqual({ stopReason: "end_turn" });
      const persisted = shape(await harness.persisted()).slice(1);
      // The turn holds its tools: its turn_end follows the tool's result.
      expect(persisted.map((event) => event.type)).toEqual([
        "user.message",
        ...TOOL_TURN,
        ...ANSWER_TURN,
      ]);
      // What subscribers saw, ephemeral events included.
      expect(types(harness.events)).toEqual([
        "user.message",
        "assistant.turn_start",
        "assistant.message_delta",
        ...LIVE_TOOL_CALL,
        ...LIVE_ANSWER_TURN,
        "session.idle",
      ]);
      expect(shape(harness.events)[3]).toEqual({
        type: "assistant.tool_call_start",
        data: { messageId: "message-1", toolCallId: "call_1", toolName: "read_file" },
      });
      expect(persisted[6]).toEqual({
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "completed", finishReason: "tool-calls" },
      });
      expect(persisted[5]).toEqual({
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "read_file",
          success: true,
          result: { content: "forty-two" },
        },
      });
      expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
      const turnStarts = persisted.filter((event) => event.type === "assistant.turn_start").length;
      expect(turnStarts).toBe(harness.server.requests.length);
    },
  );
});
