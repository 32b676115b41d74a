import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import type { EventInput } from "../../src/events/events.js";
import { createEnvelope, parseEventLog } from "../../src/session/event-log.js";
import { foldSession, SessionFold } from "../../src/session/session-model/session-model.js";
import { UsageTotals } from "../../src/session/usage-totals.js";

// The one fold every face renders from, over a recorded session whose first command exits 1.

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);

async function goldenEvents() {
  const { events, repaired } = parseEventLog(await readFile(GOLDEN));
  expect(repaired).toEqual([]);
  return events;
}

const at = (time: string) => Date.parse(`2026-11-30T09:00:${time}Z`);

describe("session model", () => {
  test("turns are numbered by the rule -p counts them by: a retried attempt shares its turn's number", async () => {
    const log = new URL("../cli/session-view-golden/new-order.jsonl", import.meta.url);
    const { events } = parseEventLog(await readFile(log));
    const model = foldSession(events);
    // Session 38: the model's usage never saw `assistant.retry`, so it counted 7 turns.
    expect(model.usage.turns).toBe(UsageTotals.of(events).turns);
    expect(model.usage.turns).toBe(6);
    expect(model.turns.map((turn) => [turn.number, turn.attempt, turn.status])).toEqual([
      [1, 1, "failed"],
      [1, 2, "completed"],
      [2, 1, "completed"],
      [3, 1, "completed"],
      [4, 1, "completed"],
      [5, 1, "cancelled"],
      [6, 1, "running"],
    ]);
    // Its compaction was the loop's (trigger `threshold`), within a prompt: not between prompts
    // (manual-compaction-views.test.ts has one the user started).
    expect(model.compactions.map((compaction) => compaction.betweenPrompts)).toEqual([false]);
    expect(model.turns.filter((turn) => turn.betweenPrompts !== undefined)).toEqual([]);
  });

  test("a command exiting 1 is failed with its exit code; duration leaves out the permission wait", async () => {
    const model = foldSession(await goldenEvents());
    expect(model.toolCalls).toEqual([
      {
        toolCallId: "call_fail",
        toolName: "bash",
        arguments: { command: "echo one; echo two; exit 1" },
        messageId: "msg-1",
        status: "failed",
        startedAt: at("02.010"),
        endedAt: at("07.270"),
        permissionWaitMs: 5000,
        permission: {
          requestId: "perm-1",
          kind: "execute",
          title: "echo one; echo two; exit 1",
          askedAt: at("02.020"),
          answeredAt: at("07.020"),
          decision: "allowed",
          scope: "once",
        },
        durationMs: 260,
        exitCode: 1,
        output: "one\ntwo",
      },
      {
        // Written before `exitCode` was recorded: the code is read from the result's last line.
        toolCallId: "call_old",
        toolName: "bash",
        arguments: { command: "false || exit 2" },
        messageId: "msg-1",
        status: "failed",
        startedAt: at("07.300"),
        endedAt: at("07.400"),
        permissionWaitMs: 0,
        durationMs: 100,
        exitCode: 2,
        output: "",
      },
      {
        toolCallId: "call_ok",
        toolName: "bash",
        arguments: { command: "echo fine" },
        messageId: "msg-1",
        status: "completed",
        startedAt: at("07.500"),
        endedAt: at("07.550"),
        permissionWaitMs: 0,
        durationMs: 50,
        exitCode: 0,
        output: "fine",
      },
    ]);
    expect(model.turns).toEqual([
      {
        turnId: "turn-1",
        number: 1,
        attempt: 1,
        status: "completed",
        startedAt: at("01.100"),
        endedAt: at("07.560"),
        finishReason: "tool-calls",
        prompt: 0,
      },
      {
        turnId: "turn-2",
        number: 2,
        attempt: 1,
        status: "completed",
        startedAt: at("07.600"),
        endedAt: at("08.010"),
        finishReason: "stop",
        prompt: 0,
      },
    ]);
    expect(model.messages).toEqual([
      {
        messageId: "msg-1",
        turnId: "turn-1",
        content: "Running them.",
        reasoning: "",
        toolCallIds: ["call_fail", "call_old", "call_ok"],
        state: "complete",
      },
      {
        messageId: "msg-2",
        turnId: "turn-2",
        content: "The tests failed.",
        reasoning: "",
        toolCallIds: [],
        state: "complete",
      },
    ]);
    expect(model.prompts).toEqual([
      {
        eventId: "f01d0000-0001-4000-8000-000000000001",
        at: at("01.000"),
        content: "Run the tests",
        source: "user",
        imageCount: 0,
        attachedFiles: [],
        // An older log: no recorded stopReason, the last turn's finish reason `stop`.
        stop: "end_turn",
      },
    ]);
    expect([model.usage.requests, model.usage.inputTokens, model.usage.outputTokens]).toEqual([
      2, 250, 30,
    ]);
    expect([model.sessionId, model.model, model.marks, model.plan]).toEqual([
      "f01d5e55-0000-4000-8000-000000000021",
      "openai-compatible:fake-model",
      [],
      [],
    ]);
  });

  test("live: one event at a time, a call moves pending → awaiting_permission → running → denied never back", () => {
    const fold = new SessionFold();
    const apply = (input: EventInput) => fold.apply(createEnvelope(input, null));
    const statuses: string[] = [];
    const track = (input: EventInput) => {
      const change = apply(input);
      if (change.kind === "tool_call") {
        statuses.push(change.toolCall.status);
      }
    };
    track({
      type: "assistant.tool_call_start",
      data: { messageId: "m", toolCallId: "c1", toolName: "bash" },
    });
    track({
      type: "tool.execution_start",
      data: { toolCallId: "c1", toolName: "bash", arguments: { command: "rm x" } },
    });
    track({
      type: "permission.requested",
      data: { requestId: "r", toolCallId: "c1", toolName: "bash", kind: "execute", title: "rm x" },
    });
    track({
      type: "permission.completed",
      data: { requestId: "r", toolCallId: "c1", decision: "denied", scope: "once" },
    });
    // A late or stray running event does not move a refused call forward.
    track({ type: "tool.execution_complete", data: denied("c1") });
    track({ type: "tool.execution_running", data: { toolCallId: "c1" } });
    expect(statuses).toEqual([
      "pending",
      "pending",
      "awaiting_permission",
      "awaiting_permission",
      "denied",
      "denied",
    ]);
  });

  test("a command the sandbox stopped: running → awaiting_permission for the retry outside it → running → completed", () => {
    const fold = new SessionFold();
    const statuses: string[] = [];
    const track = (input: EventInput) => {
      const change = fold.apply(createEnvelope(input, null));
      if (change.kind === "tool_call") {
        statuses.push(change.toolCall.status);
      }
    };
    const command = "curl -sI http://example.test";
    track({
      type: "tool.execution_start",
      data: { toolCallId: "c1", toolName: "bash", arguments: { command } },
    });
    track({ type: "tool.execution_running", data: { toolCallId: "c1" } });
    // The sandbox stopped it (no network): one question about running it outside.
    track({
      type: "permission.requested",
      data: { requestId: "r", toolCallId: "c1", toolName: "bash", kind: "execute", title: command },
    });
    track({
      type: "permission.completed",
      data: { requestId: "r", toolCallId: "c1", decision: "allowed", scope: "once" },
    });
    track({
      type: "tool.execution_complete",
      data: {
        toolCallId: "c1",
        toolName: "bash",
        success: true,
        exitCode: 0,
        result: { content: "HTTP/1.1 200 OK" },
      },
    });
    expect(statuses).toEqual(["pending", "running", "awaiting_permission", "running", "completed"]);
  });

  test("a call announced while streaming that the reply drops ends interrupted", () => {
    const fold = new SessionFold();
    const apply = (input: EventInput) => fold.apply(createEnvelope(input, null));
    apply({ type: "assistant.turn_start", data: { turnId: "t" } });
    apply({
      type: "assistant.tool_call_start",
      data: { messageId: "m", toolCallId: "c1", toolName: "create" },
    });
    const change = apply({
      type: "assistant.turn_end",
      data: { turnId: "t", status: "cancelled" },
    });
    expect(change.kind === "turn" ? change.abandoned.map((call) => call.status) : []).toEqual([
      "interrupted",
    ]);
    expect(fold.model.turns.map((turn) => turn.status)).toEqual(["cancelled"]);
  });

  test("a result the log refused (marked ephemeral) is the call's outcome, not persisted", () => {
    const fold = new SessionFold();
    const result = (toolCallId: string) => ({
      type: "tool.execution_complete" as const,
      data: { toolCallId, toolName: "view", success: true, result: { content: "x" } },
    });
    fold.apply(createEnvelope(result("kept"), null));
    // As session-journal.ts hands on an event the store refused: its envelope, `ephemeral`.
    fold.apply({ ...createEnvelope(result("refused"), null), ephemeral: true });
    expect(
      fold.model.toolCalls.map(({ toolCallId, status, resultNotPersisted }) => ({
        toolCallId,
        status,
        resultNotPersisted,
      })),
    ).toEqual([
      { toolCallId: "kept", status: "completed", resultNotPersisted: undefined },
      { toolCallId: "refused", status: "completed", resultNotPersisted: true },
    ]);
  });

  test("odd data in a trusted envelope does not throw", () => {
    const fold = new SessionFold();
    const odd = { type: "assistant.message", data: { messageId: "m" } } as unknown as EventInput;
    expect(fold.apply(createEnvelope(odd, null)).kind).toBe("message");
    const result = { type: "tool.execution_complete", data: { toolCallId: "c", toolName: "x" } };
    expect(fold.apply(createEnvelope(result as unknown as EventInput, null)).kind).toBe(
      "tool_call",
    );
    expect(fold.model.toolCalls.map((call) => call.status)).toEqual(["failed"]);
  });
});

function denied(toolCallId: string) {
  return {
    toolCallId,
    toolName: "bash",
    success: false,
    result: { content: "Permission denied" },
    error: { message: "Permission denied", code: "denied" as const },
  };
}
