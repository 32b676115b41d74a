import { describe, expect, test } from "vitest";
import { UpdateMapper } from "../../src/acp/updates.js";
import type { EventInput } from "../../src/events/events.js";
import { createEnvelope } from "../../src/session/event-log.js";
import { builtinTools } from "../../src/tools/index.js";

function mapper(mode: "live" | "replay" = "live"): UpdateMapper {
  return new UpdateMapper({
    mode,
    cwd: "/work",
    toolNamed: (name) => builtinTools().find((tool) => tool.name === name),
    contextWindow: () => 200_000,
    titled: false,
    notices: false,
  });
}

const map = (target: UpdateMapper, input: EventInput) => target.map(createEnvelope(input, null));

/** The update that fails a call announced while streaming that never got complete arguments. */
const notRun = (toolCallId: string) => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  status: "failed",
  content: [
    {
      type: "content",
      content: {
        type: "text",
        text: "Not run: the reply ended before the call's arguments were complete.",
      },
    },
  ],
});

describe("UpdateMapper", () => {
  test("usage: context used and size; cost is cumulative once known", () => {
    const target = mapper();
    const usage = (cost?: number) =>
      map(target, {
        type: "assistant.usage",
        data: {
          model: "m",
          turnId: "t",
          inputTokens: 100,
          outputTokens: 20,
          ...(cost === undefined ? {} : { cost }),
        },
      });
    expect(usage()).toEqual([{ sessionUpdate: "usage_update", used: 120, size: 200_000 }]);
    expect(usage(0.5)).toEqual([
      {
        sessionUpdate: "usage_update",
        used: 120,
        size: 200_000,
        cost: { amount: 0.5, currency: "USD" },
      },
    ]);
    expect(usage(0.25)[0]).toMatchObject({ cost: { amount: 0.75 } });
    expect(map(target, { type: "assistant.usage", data: { model: "m", turnId: "t" } })).toEqual([]);
  });

  test("a call announced while streaming, whose reply is cancelled, ends failed, not pending", () => {
    const target = mapper();
    expect(
      map(target, {
        type: "assistant.tool_call_start",
        data: { messageId: "m1", toolCallId: "c1", toolName: "create" },
      }),
    ).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        title: "create",
        kind: "edit",
        status: "pending",
      },
    ]);
    expect(
      map(target, {
        type: "assistant.message",
        data: {
          messageId: "m1",
          content: "Writing",
          toolRequests: [],
          finishReason: "other",
          interrupted: true,
        },
      }),
    ).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Writing" },
        messageId: "m1",
      },
      notRun("c1"),
    ]);
    expect(
      map(target, { type: "assistant.turn_end", data: { turnId: "t1", status: "cancelled" } }),
    ).toEqual([]);
    // Cancelled before any text: no message, so the turn's end fails the call.
    map(target, {
      type: "assistant.tool_call_start",
      data: { messageId: "m2", toolCallId: "c2", toolName: "bash" },
    });
    expect(
      map(target, { type: "assistant.turn_end", data: { turnId: "t2", status: "cancelled" } }),
    ).toEqual([notRun("c2")]);
    // Nothing is left to close at the next turn's end.
    expect(
      map(target, { type: "assistant.turn_end", data: { turnId: "t3", status: "completed" } }),
    ).toEqual([]);
  });

  test("a replay ignores tool-call starts and in-progress marks: final states only", () => {
    const target = mapper("replay");
    expect(
      map(target, {
        type: "assistant.tool_call_start",
        data: { messageId: "m1", toolCallId: "c1", toolName: "view" },
      }),
    ).toEqual([]);
    expect(map(target, { type: "tool.execution_running", data: { toolCallId: "c1" } })).toEqual([]);
  });

  test("tool calls: unknown tools, unusable arguments and failed edits still show what happened", () => {
    const target = mapper();
    const updates = map(target, {
      type: "assistant.message",
      data: {
        messageId: "m1",
        content: "",
        finishReason: "tool-calls",
        toolRequests: [
          { toolCallId: "c1", name: "teleport", arguments: { to: "mars" } },
          {
            toolCallId: "c2",
            name: "view",
            arguments: {},
            rawArguments: '{"path":',
            argumentsError: "truncated",
          },
          {
            toolCallId: "c3",
            name: "edit",
            arguments: { path: "a.ts", old_str: "x", new_str: "y" },
          },
        ],
      },
    });
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        status: "pending",
        title: "teleport",
        kind: "other",
        rawInput: { to: "mars" },
        locations: [],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "c2",
        status: "pending",
        title: "view",
        kind: "read",
        rawInput: { rawArguments: '{"path":' },
        locations: [],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "c3",
        status: "pending",
        title: "Edit a.ts",
        kind: "edit",
        rawInput: { path: "a.ts", old_str: "x", new_str: "y" },
        locations: [{ path: "/work/a.ts" }],
      },
    ]);
    const failedEdit = map(target, {
      type: "tool.execution_complete",
      data: {
        toolCallId: "c3",
        toolName: "edit",
        success: false,
        result: { content: "old_str not found" },
        error: { message: "old_str not found", code: "failed" },
      },
    });
    expect(failedEdit).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c3",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "old_str not found" } }],
        rawOutput: { error: "failed", outcome: "failed" },
      },
    ]);
  });

  test("a result whose request is missing from a damaged log is announced before it is completed", () => {
    const target = mapper("replay");
    const updates = map(target, {
      type: "tool.execution_complete",
      data: { toolCallId: "lost", toolName: "bash", success: true, result: { content: "ok" } },
    });
    expect(
      updates.map((update) => [
        update.sessionUpdate,
        "status" in update ? update.status : undefined,
      ]),
    ).toEqual([
      ["tool_call", "pending"],
      ["tool_call_update", "completed"],
    ]);
  });

  test("live: a message streamed as deltas is not sent again whole; autopilot nudges are not the user's", () => {
    const target = mapper();
    expect(
      map(target, { type: "user.message", data: { content: "keep going", source: "autopilot" } }),
    ).toEqual([]);
    map(target, { type: "assistant.message_delta", data: { messageId: "m1", deltaContent: "Hi" } });
    const whole = map(target, {
      type: "assistant.message",
      data: { messageId: "m1", content: "Hi", toolRequests: [], finishReason: "stop" },
    });
    expect(whole).toEqual([]);
  });
});
