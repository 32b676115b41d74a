import { describe, expect } from "vitest";
import { AUTOPILOT_NUDGE } from "../../src/agent/autopilot.js";
import { updatePlanTool } from "../../src/tools/index.js";
import { dataOf } from "../llm/helpers.js";
import { ANSWER_TURN, TOOL_TURN } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";
import { type Harness, shape, types } from "../support/harness.js";
import { callingTools } from "../support/replies.js";
import { getTimeTool } from "../support/test-tools.js";

/** The events of a turn whose reply has no tool call. */
const textTurn = [...ANSWER_TURN];

function toolNames(harness: Harness, index: number): string[] {
  const body = harness.server.requests[index]?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("case 28: autopilot", () => {
  test("a text-only reply is nudged; task_complete ends the prompt without another request", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [getTimeTool], autopilot: true });
    harness.server.enqueue(
      { text: "I'll now check the time." },
      callingTools(["t1", "get_time", {}]),
      callingTools(["t2", "task_complete", { summary: "time checked" }]),
    );
    expect(await harness.prompt("check the time")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests).toHaveLength(3);
    for (const index of [0, 1, 2]) {
      expect(toolNames(harness, index)).toEqual(["get_time", "task_complete"]);
    }
    // The whole log: session.task_complete belongs to its turn, before that turn's end.
    expect(types(await harness.persisted()).slice(1)).toEqual([
      "user.message",
      ...ANSWER_TURN,
      "user.message",
      ...TOOL_TURN,
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "tool.execution_start",
      "tool.execution_complete",
      "session.task_complete",
      "assistant.turn_end",
    ]);
    const persisted = shape(await harness.persisted()).filter(
      (event) =>
        event.type === "user.message" ||
        event.type.startsWith("tool.") ||
        event.type === "session.task_complete",
    );
    expect(persisted).toEqual([
      { type: "user.message", data: { content: "check the time", source: "user" } },
      { type: "user.message", data: { content: AUTOPILOT_NUDGE, source: "autopilot" } },
      {
        type: "tool.execution_start",
        data: { toolCallId: "t1", toolName: "get_time", arguments: {} },
      },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "t1",
          toolName: "get_time",
          success: true,
          result: { content: "12:00" },
        },
      },
      {
        type: "tool.execution_start",
        data: {
          toolCallId: "t2",
          toolName: "task_complete",
          arguments: { summary: "time checked" },
        },
      },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "t2",
          toolName: "task_complete",
          success: true,
          result: { content: "Task complete: time checked" },
        },
      },
      { type: "session.task_complete", data: { summary: "time checked", success: true } },
    ]);
    // The task_complete pair is in the history: the next prompt's request is valid.
    harness.server.enqueue(callingTools(["t3", "task_complete", { summary: "again" }]));
    expect(await harness.prompt("and again")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.at(-1)?.status).toBe(200);
  });

  test("text-only replies forever stop after the nudge cap", async ({ openHarness }) => {
    const harness = await openHarness({ autopilot: true, maxAutopilotContinues: 3 });
    for (let index = 0; index < 10; index++) {
      harness.server.enqueue({ text: "Working on it." });
    }
    expect(await harness.prompt("make the tests pass")).toEqual({
      stopReason: "end_turn",
      autopilotStopped: "cap_reached",
    });
    expect(harness.server.requests).toHaveLength(4);
    // Three nudges, four turns; the last turn says the task was not marked complete, then ends
    // the prompt (its end is the prompt's last stored event, where a follower ends it).
    expect(types(await harness.persisted()).slice(1)).toEqual([
      "user.message",
      ...textTurn,
      "user.message",
      ...textTurn,
      "user.message",
      ...textTurn,
      "user.message",
      ...textTurn.slice(0, -1),
      "session.autopilot_stopped",
      "assistant.turn_end",
    ]);
    expect(dataOf(harness.events, "assistant.turn_end").map((data) => data.stopReason)).toEqual([
      undefined,
      undefined,
      undefined,
      "end_turn",
    ]);
    expect(dataOf(harness.events, "session.autopilot_stopped")).toEqual([
      { reason: "cap_reached", continues: 3 },
    ]);
    expect(harness.events.at(-1)).toMatchObject({
      type: "session.idle",
      data: { stopReason: "end_turn" },
    });
  });

  test("no nudge is recorded once the turn limit leaves no request to send it with", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ autopilot: true, maxTurns: 2 });
    harness.server.enqueue({ text: "Working on it." }, { text: "Still working." });
    expect(await harness.prompt("make the tests pass")).toEqual({
      stopReason: "max_turn_requests",
    });
    expect(harness.server.requests).toHaveLength(2);
    expect(types(await harness.persisted()).slice(1)).toEqual([
      "user.message",
      ...textTurn,
      "user.message",
      ...textTurn,
    ]);
    expect(dataOf(harness.events, "user.message").map((data) => data.source)).toEqual([
      "user",
      "autopilot",
    ]);
  });

  test("invalid task_complete arguments are an error result, and the loop goes on", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ autopilot: true });
    harness.server.enqueue(
      callingTools(["t1", "task_complete", { summary: 5 }]),
      callingTools(["t2", "task_complete", { summary: "done" }]),
    );
    expect(await harness.prompt("finish")).toEqual({ stopReason: "end_turn" });
    expect(
      types(await harness.persisted()).filter((type) => type === "session.task_complete"),
    ).toHaveLength(1);
    expect(harness.server.requests).toHaveLength(2);
  });

  test("no nudge after a provider error", async ({ openHarness }) => {
    const harness = await openHarness({ autopilot: true, tuning: { retry: { maxRetries: 0 } } });
    harness.server.enqueue({ status: 400, body: { error: { message: "bad request" } } });
    expect(await harness.prompt("go")).toMatchObject({ error: { errorType: "invalid_request" } });
    expect(harness.server.requests).toHaveLength(1);
  });

  test("autopilot off: task_complete is not offered and text ends the turn", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [getTimeTool] });
    harness.server.enqueue({ text: "I'll now run the tests." });
    expect(await harness.prompt("go")).toEqual({ stopReason: "end_turn" });
    expect(toolNames(harness, 0)).toEqual(["get_time"]);
  });
});

describe("case 27: the turn limit", () => {
  test("stops after maxTurns requests with max_turn_requests; every call has its result", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [getTimeTool], maxTurns: 3 });
    for (let index = 0; index < 5; index++) {
      harness.server.enqueue({
        toolCalls: [{ id: `c${index}`, name: "get_time", arguments: `{"n":${index}}` }],
      });
    }
    expect(await harness.prompt("loop")).toEqual({ stopReason: "max_turn_requests" });
    expect(harness.server.requests).toHaveLength(3);
    const persisted = types(await harness.persisted());
    expect(persisted.filter((type) => type === "tool.execution_start")).toHaveLength(3);
    expect(persisted.filter((type) => type === "tool.execution_complete")).toHaveLength(3);
    expect(harness.events.at(-1)).toMatchObject({
      type: "session.idle",
      data: { stopReason: "max_turn_requests" },
    });
  });
});

describe("the plan", () => {
  test("a successful update_plan call records session.plan_updated after its result", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [updatePlanTool] });
    const entries = [
      { content: "Read the code", priority: "high", status: "completed" },
      { content: "Fix the bug", priority: "medium", status: "in_progress" },
    ];
    harness.server.enqueue(
      { toolCalls: [{ id: "p1", name: "update_plan", arguments: JSON.stringify({ entries }) }] },
      callingTools(["p2", "update_plan", { entries: [{ content: "x" }] }]),
      { text: "Planned." },
    );
    expect(await harness.prompt("plan it")).toEqual({ stopReason: "end_turn" });
    const persisted = shape(await harness.persisted()).filter(
      (event) => event.type === "tool.execution_complete" || event.type === "session.plan_updated",
    );
    expect(persisted.map((event) => event.type)).toEqual([
      "tool.execution_complete",
      "session.plan_updated",
      "tool.execution_complete",
    ]);
    expect(persisted[1]?.data).toEqual({ entries });
  });
});

describe("stop reasons", () => {
  test.for(["openai-chat", "anthropic", "openai-responses"] as const)(
    "an empty reply stopped by the content filter is a refusal, not an error (%s)",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire });
      harness.server.enqueue({ finish: "content_filter" });
      expect(await harness.prompt("something filtered")).toEqual({ stopReason: "refusal" });
      expect(types(await harness.persisted()).slice(1)).toEqual(["user.message", ...ANSWER_TURN]);
      expect(dataOf(harness.events, "assistant.turn_end")).toEqual([
        {
          turnId: expect.any(String),
          status: "completed",
          finishReason: "content-filter",
          stopReason: "refusal",
        },
      ]);
      expect(harness.events.at(-1)).toMatchObject({
        type: "session.idle",
        data: { stopReason: "refusal" },
      });
    },
  );

  test("a text reply stopped by the content filter is a refusal too", async ({ openHarness }) => {
    const harness = await openHarness();
    harness.server.enqueue({ text: "I can't", finish: "content_filter" });
    expect(await harness.prompt("something filtered")).toEqual({ stopReason: "refusal" });
  });
});
