import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import type { SessionEvent as LoggedEvent } from "../../src/events/events.js";
import { recordEvents, useCopilotClient } from "./extended-support.js";

/**
 * Issue 25, `session.shutdown`: when an app ends a session (its `session.shutdown` call, a
 * disconnect), turnloop records Copilot's `session.shutdown` event with the session's metrics,
 * driven through the official `@github/copilot-sdk` over the built CLI.
 */

const setup = useCopilotClient();

async function loggedEvents(sessionId: string): Promise<LoggedEvent[]> {
  const path = join(setup.fixture.home, "session-state", sessionId, "events.jsonl");
  const text = await readFile(path, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as LoggedEvent);
}

/** Sum over the conversation's requests of the time from `turn_start` to the reply, per the log. */
function apiTime(events: readonly LoggedEvent[]): number {
  let total = 0;
  let startedAt: number | undefined;
  for (const event of events) {
    if (event.type === "assistant.turn_start") {
      startedAt = Date.parse(event.timestamp);
    } else if (event.type === "assistant.message" && startedAt !== undefined) {
      total += Date.parse(event.timestamp) - startedAt;
      startedAt = undefined;
    }
  }
  return total;
}

describe("session.shutdown", () => {
  test("the app's session.shutdown records the session's usage per model, API time, code changes and context", async () => {
    const { client, fixture } = setup;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    const path = join(fixture.cwd, "shutdown-notes.txt");
    fixture.model.enqueue(
      {
        toolCalls: [
          {
            id: "call_create",
            name: "create",
            arguments: JSON.stringify({ path, file_text: "one\ntwo\nthree\n" }),
          },
        ],
        usage: { input: 100, output: 20, cacheRead: 30 },
      },
      {
        toolCalls: [
          {
            id: "call_edit",
            name: "edit",
            arguments: JSON.stringify({ path, old_str: "two", new_str: "2\nzwei" }),
          },
        ],
        usage: { input: 150, output: 10 },
      },
      { text: "Done.", usage: { input: 200, output: 5 } },
    );
    await session.sendAndWait({ prompt: "write the notes" });
    const shutdown = new Promise<SessionEvent>((resolve) => {
      session.on((event: SessionEvent) => {
        if (event.type === "session.shutdown") {
          resolve(event);
        }
      });
    });
    await session.rpc.shutdown({ type: "routine", reason: "done with it" });
    const event = await shutdown;

    const logged = await loggedEvents(session.sessionId);
    const start = logged[0];
    const usageInfo = events.findLast((seen) => seen.type === "session.usage_info");
    expect(event.data).toEqual({
      shutdownType: "routine",
      sessionStartTime: Date.parse(start?.type === "session.start" ? start.data.startTime : ""),
      totalApiDurationMs: apiTime(logged),
      modelMetrics: {
        "fake-model": {
          requests: { count: 3, cost: 0 },
          usage: { inputTokens: 450, outputTokens: 35, cacheReadTokens: 30, cacheWriteTokens: 0 },
        },
      },
      codeChanges: { linesAdded: 5, linesRemoved: 1, filesModified: [path] },
      currentModel: "fake-model",
      currentTokens: usageInfo?.type === "session.usage_info" ? usageInfo.data.currentTokens : -1,
      eventsFileSizeBytes: expect.any(Number),
    });
    // On disk it is the last event, with turnloop's model ids.
    const last = logged.at(-1);
    expect(last?.type).toBe("session.shutdown");
    expect(last?.type === "session.shutdown" && Object.keys(last.data.modelMetrics)).toEqual([
      "openai-compatible:fake-model",
    ]);
  });

  test("every request counts for the model the session ran then, failed and cancelled ones too, as every count of requests does", async () => {
    const { client, fixture } = setup;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const seen = recordEvents(session);
    fixture.model.enqueue({ text: "first", usage: { input: 10, output: 1 } });
    await session.sendAndWait({ prompt: "one" });
    await session.setModel("second-model");
    // A failed request (no retries in this fixture), a cancelled one, then an answer.
    fixture.model.enqueue({
      status: 500,
      body: { error: { message: "boom", type: "server_error" } },
    });
    await expect(session.sendAndWait({ prompt: "two" })).rejects.toThrow(/boom/);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Aborted once the request reached the model (its assistant.turn_start is stored before the
    // request is sent: an abort then would leave "held back" queued for the next prompt).
    const sent = fixture.model.requests.length;
    fixture.model.enqueue({ text: ["held", " back"], pause: { afterEvents: 1, until: gate } });
    const cancelled = session.sendAndWait({ prompt: "three" });
    await expect.poll(() => fixture.model.requests.length).toBe(sent + 1);
    await session.abort();
    await cancelled.catch(() => undefined);
    open();
    fixture.model.enqueue({ text: "last", usage: { input: 20, output: 2 } });
    await session.sendAndWait({ prompt: "four" });

    const metrics = await session.rpc.usage.getMetrics();
    const shutdown = new Promise<SessionEvent>((resolve) => {
      session.on((event: SessionEvent) => {
        if (event.type === "session.shutdown") {
          resolve(event);
        }
      });
    });
    await session.rpc.shutdown({ type: "routine" });
    const event = await shutdown;
    const logged = await loggedEvents(session.sessionId);
    const turnEnds = logged.flatMap((entry) =>
      entry.type === "assistant.turn_end" ? [entry.data.status] : [],
    );
    expect(turnEnds).toEqual(["completed", "failed", "cancelled", "completed"]);
    expect(seen.filter((entry) => entry.type === "assistant.turn_start")).toHaveLength(4);
    const perModel = event.type === "session.shutdown" ? event.data.modelMetrics : {};
    // getMetrics has the wire's shape, from the fold session.shutdown reports (round 3 session 46).
    const shutdownData = event.type === "session.shutdown" ? event.data : undefined;
    expect(metrics).toEqual({
      totalPremiumRequestCost: 0,
      totalUserRequests: 4,
      totalApiDurationMs: shutdownData?.totalApiDurationMs,
      sessionStartTime: new Date(shutdownData?.sessionStartTime ?? 0).toISOString(),
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [], filesModifiedCount: 0 },
      modelMetrics: perModel,
      lastCallInputTokens: 20,
      lastCallOutputTokens: 2,
      inputTokens: 30,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      requests: 4,
    });
    expect(perModel).toEqual({
      "fake-model": {
        requests: { count: 1, cost: 0 },
        usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      "second-model": {
        requests: { count: 3, cost: 0 },
        usage: { inputTokens: 20, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    });
  });

  test("an error shutdown carries its reason; a disconnect records a routine one", async () => {
    const { client, fixture } = setup;
    const failing = await client.createSession({ onPermissionRequest: approveAll });
    const failingEvents = recordEvents(failing);
    fixture.model.enqueue({ text: "hi" });
    await failing.sendAndWait({ prompt: "hello" });
    await failing.rpc.shutdown({ type: "error", reason: "the app failed" });
    const failed = failingEvents.find((event) => event.type === "session.shutdown");
    expect(failed?.type === "session.shutdown" && failed.data).toMatchObject({
      shutdownType: "error",
      errorReason: "the app failed",
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
    });

    const ended = await client.createSession({ onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "bye" });
    await ended.sendAndWait({ prompt: "hello" });
    await ended.disconnect();
    const logged = await loggedEvents(ended.sessionId);
    expect(logged.map((event) => event.type).slice(-2)).toEqual([
      "assistant.turn_end",
      "session.shutdown",
    ]);
    expect(logged.at(-1)?.data).toMatchObject({ shutdownType: "routine" });
  });
  test("a resumed session's shutdown counts what its log held before the resume too", async () => {
    const { client, fixture } = setup;
    const first = await client.createSession({ onPermissionRequest: approveAll });
    const path = join(fixture.cwd, "resumed-notes.txt");
    fixture.model.enqueue(
      {
        toolCalls: [
          {
            id: "call_before",
            name: "create",
            arguments: JSON.stringify({ path, file_text: "one\ntwo\n" }),
          },
        ],
        usage: { input: 100, output: 10 },
      },
      { text: "Written.", usage: { input: 110, output: 3 } },
    );
    await first.sendAndWait({ prompt: "write" });
    await first.disconnect();

    const resumed = await client.resumeSession(first.sessionId, {
      onPermissionRequest: approveAll,
    });
    const events = recordEvents(resumed);
    fixture.model.enqueue(
      {
        toolCalls: [
          {
            id: "call_after",
            name: "edit",
            arguments: JSON.stringify({ path, old_str: "two", new_str: "2\nzwei" }),
          },
        ],
        usage: { input: 200, output: 20 },
      },
      { text: "Edited.", usage: { input: 210, output: 4 } },
    );
    await resumed.sendAndWait({ prompt: "edit" });
    await resumed.rpc.shutdown({ type: "routine" });
    await expect.poll(() => events.some((event) => event.type === "session.shutdown")).toBe(true);
    const event = events.find((seen) => seen.type === "session.shutdown");

    const logged = await loggedEvents(resumed.sessionId);
    const start = logged[0];
    expect(logged.filter((entry) => entry.type === "session.shutdown")).toHaveLength(2);
    expect(event?.type === "session.shutdown" && event.data).toMatchObject({
      sessionStartTime: Date.parse(start?.type === "session.start" ? start.data.startTime : ""),
      totalApiDurationMs: apiTime(logged),
      modelMetrics: {
        "fake-model": {
          requests: { count: 4, cost: 0 },
          usage: { inputTokens: 620, outputTokens: 37, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      },
      codeChanges: { linesAdded: 4, linesRemoved: 1, filesModified: [path] },
    });
  });
});
