import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventsPath } from "../../src/session/paths.js";
import { bashTool } from "../../src/tools/bash.js";
import { eventually, waitForEvent } from "../llm/helpers.js";
import { TOOL_TURN } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";
import { chatMessages, ROLES_AFTER_ONE_TOOL_TURN, shape, types } from "../support/harness.js";

describe("case 01: cancel during a tool call", () => {
  test.for(["openai-chat", "anthropic"] as const)(
    "the call gets an interrupted result on disk, and the next prompt's history is valid (%s)",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire, tools: [bashTool] });
      harness.server.enqueue(
        {
          toolCalls: [
            { id: "call_S1", name: "bash", arguments: '{"command":"touch started; sleep 30"}' },
          ],
        },
        { text: "ok" },
      );
      const controller = new AbortController();
      const running = harness.prompt("run sleep 30", controller.signal);
      // The command is running (its marker is written) before the cancel comes.
      await expect.poll(() => existsSync(join(harness.cwd, "started"))).toBe(true);
      controller.abort();
      expect(await running).toEqual({ stopReason: "cancelled" });
      const persisted = shape(await harness.persisted()).slice(1);
      expect(persisted.map((event) => event.type)).toEqual(["user.message", ...TOOL_TURN, "abort"]);
      // A cancelled tool means a cancelled turn.
      expect(persisted[6]).toEqual({
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "cancelled", finishReason: "tool-calls" },
      });
      expect(persisted[5]?.data).toMatchObject({
        toolCallId: "call_S1",
        success: false,
        error: { code: "cancelled" },
      });
      expect(types(harness.events).at(-1)).toBe("session.idle");
      expect(harness.events.at(-1)?.data).toEqual({ stopReason: "cancelled" });

      expect(await harness.prompt("say ok")).toEqual({ stopReason: "end_turn" });
      expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
    },
  );

  test("after a crash, resume gives the dangling call an interrupted result once, on disk", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: [bashTool] });
    harness.server.enqueue({
      toolCalls: [{ id: "call_S1", name: "bash", arguments: '{"command":"sleep 30"}' }],
    });
    const controller = new AbortController();
    const started = waitForEvent(harness, (event) => event.type === "tool.execution_start");
    const running = harness.prompt("run sleep 30", controller.signal);
    await started;
    // Simulate a kill: what is on disk now is what a crashed process leaves (no result yet).
    const atCrash = await harness.persisted();
    expect(types(atCrash).at(-1)).toBe("tool.execution_start");
    controller.abort();
    await running;
    // Rewrite the file as the crash left it, then resume twice.
    await writeFile(
      eventsPath(harness.home, harness.session.id),
      atCrash.map((event) => `${JSON.stringify(event)}\n`).join(""),
    );
    await harness.reopen();
    await harness.reopen();
    const afterResume = await harness.persisted();
    const repairs = afterResume.filter((event) => event.type === "tool.execution_complete");
    expect(repairs).toHaveLength(1);
    expect(repairs[0]?.data).toMatchObject({
      toolCallId: "call_S1",
      success: false,
      error: { code: "interrupted" },
    });
    // The turn the crash left open is closed after the call's result (session/open-work.ts).
    expect(types(afterResume).slice(-5)).toEqual([
      "tool.execution_start",
      "session.resume",
      "tool.execution_complete",
      "assistant.turn_end",
      "session.resume",
    ]);
    harness.server.enqueue({ text: "ok" });
    expect(await harness.prompt("say ok")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.at(-1)?.status).toBe(200);
    const messages = chatMessages(harness, -1);
    expect(messages.map((message) => message.role)).toEqual(ROLES_AFTER_ONE_TOOL_TURN);
  });
});

describe("case 02: cancel while the model streams", () => {
  test("one cancelled outcome, the stream is closed, nothing after idle, and the next prompt works", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue(
      { text: Array.from({ length: 200 }, () => "word "), stallAfterEvents: 6 },
      { text: "second", usage: { input: 20, output: 1 } },
    );
    const controller = new AbortController();
    let deltas = 0;
    const thirdDelta = waitForEvent(
      harness,
      (event) => event.type === "assistant.message_delta" && ++deltas === 3,
    );
    const running = harness.prompt("write a long text", controller.signal);
    await thirdDelta;
    controller.abort();
    expect(await running).toEqual({ stopReason: "cancelled" });
    const eventsAtAnswer = harness.events.length;
    // Once the server has seen the stream closed, nothing more can come from it.
    expect(await eventually(() => harness.server.requests[0]?.clientClosed === true)).toBe(true);
    expect(harness.events.length).toBe(eventsAtAnswer);
    const persisted = (await harness.persisted()).slice(1);
    expect(types(persisted)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.turn_end",
      "abort",
    ]);
    // What the user saw is kept, marked interrupted; the turn is recorded as cancelled.
    const shown = harness.events
      .flatMap((event) =>
        event.type === "assistant.message_delta" ? [event.data.deltaContent] : [],
      )
      .join("");
    expect(persisted[2]?.data).toMatchObject({
      content: shown,
      toolRequests: [],
      finishReason: "other",
      interrupted: true,
    });
    expect(persisted[3]?.data).toMatchObject({ status: "cancelled" });

    const before = harness.events.length;
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    const deltasOfSecond = harness.events
      .slice(before)
      .flatMap((event) =>
        event.type === "assistant.message_delta" ? [event.data.deltaContent] : [],
      );
    expect(deltasOfSecond).toEqual(["second"]);
    // The cancelled reply is replayed as the valid, non-empty assistant message the user saw.
    const messages = chatMessages(harness, 1);
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
    ]);
    expect(messages[2]?.content).toBe(shown);
  });

  test("a cancel before the prompt starts still gives exactly one cancelled outcome", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    const controller = new AbortController();
    controller.abort();
    expect(await harness.prompt("hi", controller.signal)).toEqual({ stopReason: "cancelled" });
    expect(harness.server.requests).toHaveLength(0);
    harness.server.enqueue({ text: "fine" });
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
  });

  test("an idle cancel does nothing and does not stick", async ({ openHarness }) => {
    const harness = await openHarness();
    harness.session.cancel();
    harness.server.enqueue({ text: "fine" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
  });
});
