import { beforeAll, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import type { HookInputs } from "../../src/protocol/hooks.js";
import type { TurnloopClient, TurnloopSession } from "../../src/sdk/index.js";
import { fixtureForFile, normalise, recordEvents, requestMessages } from "./support.js";

/**
 * The app's `onErrorOccurred` hook decides what a failed model request does (retry, skip, abort)
 * before the failure ends the prompt: an SDK client against a spawned server and a fake model
 * over real HTTP (TURNLOOP_MAX_RETRIES=0: every failure reaches the hook at once).
 */
const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/** The session's stored events, as the server reads them (`getMessages`). */
function storedEvents(session: TurnloopSession): Promise<SessionEvent[]> {
  return session.getMessages();
}

/** The events of the latest prompt (from its `user.message`), usage and session start left out. */
function ofLastPrompt(events: readonly SessionEvent[]) {
  const start = events.findLastIndex(
    (event) => event.type === "user.message" && event.data.source === "user",
  );
  return normalise(
    events.slice(start).filter((event) => event.type !== "assistant.usage"),
    fixture,
  );
}

describe("onErrorOccurred acts on its output", () => {
  test("retry sends the failed request again, retryCount times, keeping the broken reply as such; userNotification reaches the app", async () => {
    const asked: Array<HookInputs["errorOccurred"]> = [];
    const session = await client.createSession({
      streaming: true,
      hooks: {
        onErrorOccurred: (input) => {
          asked.push({ ...input });
          return { errorHandling: "retry", retryCount: 2, userNotification: "Trying again." };
        },
      },
    });
    const seen = recordEvents(session);
    fixture.model.enqueue(
      { text: ["Hel", "lo, ", "wor"], breakAfterEvents: 2, breakBy: "reset" },
      { status: 500, body: { error: { message: "the model is down" } } },
      { text: "Hello, world." },
    );
    const reply = await session.sendAndWait({ prompt: "hi" });
    expect(reply?.data.content).toBe("Hello, world.");
    // Asked once, about the first failure; the retry that failed took the second retry unasked.
    expect(asked.map(({ errorContext, recoverable }) => [errorContext, recoverable])).toEqual([
      ["model_call", true],
    ]);
    // Every retried request is the one that failed: the broken reply is not in it.
    const sent = [-3, -2, -1].map((index) =>
      requestMessages(fixture.model, index).filter((message) => message.role !== "system"),
    );
    expect(sent).toEqual([
      [{ role: "user", content: "hi" }],
      [{ role: "user", content: "hi" }],
      [{ role: "user", content: "hi" }],
    ]);
    const stored = await storedEvents(session);
    const brokenText = stored.find(
      (event) => event.type === "assistant.message" && event.data.interrupted === true,
    );
    expect(brokenText?.type === "assistant.message" && brokenText.data.content).toMatch(/^Hel/);
    expect(ofLastPrompt(stored).map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
      "session.info",
      "assistant.retry",
      "assistant.turn_start",
      "assistant.turn_end",
      "assistant.retry",
      "assistant.turn_start",
      "assistant.message",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
    ]);
    const retries = stored.flatMap((event) =>
      event.type === "assistant.retry" ? [[event.data.attempt, event.data.delayMs]] : [],
    );
    expect(retries).toEqual([
      [1, 0],
      [2, 0],
    ]);
    const notices = seen.filter((event) => event.type === "session.info");
    expect(notices.map((event) => event.data)).toEqual([
      { infoType: "notification", message: "Trying again." },
    ]);
    expect(seen.some((event) => event.type === "session.error")).toBe(false);
  });

  test("retry stops at retryCount: the last failure ends the prompt", async () => {
    const session = await client.createSession({
      hooks: { onErrorOccurred: () => ({ errorHandling: "retry" }) },
    });
    fixture.model.enqueue(
      { status: 500, body: { error: { message: "down once" } } },
      { status: 500, body: { error: { message: "down twice" } } },
      { text: "never asked" },
    );
    const before = fixture.model.requests.length;
    await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/down twice/);
    // retryCount absent: one retry.
    expect(fixture.model.requests.length - before).toBe(2);
    const stored = ofLastPrompt(await storedEvents(session));
    expect(stored.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
      "assistant.retry",
      "assistant.turn_start",
      "assistant.turn_end",
      "session.error",
    ]);
    // The reply left in the queue is the next prompt's.
    expect((await session.sendAndWait({ prompt: "again" }))?.data.content).toBe("never asked");
  });

  test("skip ends the prompt without a failure; the log says what failed", async () => {
    const session = await client.createSession({
      hooks: { onErrorOccurred: () => ({ errorHandling: "skip" }) },
    });
    const seen = recordEvents(session);
    fixture.model.enqueue({ status: 400, body: { error: { message: "bad request" } } });
    await expect(session.sendAndWait({ prompt: "hi" })).resolves.toBeUndefined();
    expect(seen.some((event) => event.type === "session.error")).toBe(false);
    const idle = seen.find((event) => event.type === "session.idle");
    expect(idle?.data).toMatchObject({ stopReason: "end_turn" });
    const stored = ofLastPrompt(await storedEvents(session));
    expect(stored.slice(1)).toEqual([
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "failed", errorType: "invalid_request" },
      },
      {
        type: "hook.start",
        data: {
          hookInvocationId: "hook-1",
          hookType: "errorOccurred",
          input: {
            sessionId: "<session>",
            timestamp: "<timestamp>",
            cwd: "<cwd>",
            error: expect.stringMatching(/bad request/),
            errorContext: "model_call",
            recoverable: false,
          },
        },
      },
      {
        type: "hook.end",
        data: {
          hookInvocationId: "hook-1",
          hookType: "errorOccurred",
          success: true,
          output: { errorHandling: "skip" },
        },
      },
      {
        type: "session.warning",
        data: {
          warningType: "model_call_skipped",
          message: expect.stringMatching(
            /^The model request failed \(.*bad request.*\); the app's errorOccurred hook skipped it, so the prompt ended without a reply\.$/,
          ),
        },
      },
      // The prompt ended on its own: agentStop is asked, as after any reply.
      expect.objectContaining({
        type: "hook.start",
        data: expect.objectContaining({ hookType: "agentStop" }),
      }),
      expect.objectContaining({
        type: "hook.end",
        data: expect.objectContaining({ hookType: "agentStop" }),
      }),
    ]);
  });

  test("skip after a reply broke mid-stream: sendAndWait gives no answer, the broken reply stays marked in the events", async () => {
    const session = await client.createSession({
      streaming: true,
      hooks: { onErrorOccurred: () => ({ errorHandling: "skip" }) },
    });
    const seen = recordEvents(session);
    fixture.model.enqueue({
      text: ["Hel", "lo, ", "wor"],
      breakAfterEvents: 2,
      breakBy: "reset",
    });
    await expect(session.sendAndWait({ prompt: "hi" })).resolves.toBeUndefined();
    const broken = seen.filter((event) => event.type === "assistant.message");
    expect(broken.map((event) => event.data)).toEqual([
      expect.objectContaining({
        content: expect.stringMatching(/^Hel/),
        interrupted: true,
        error: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
    expect(seen.map((event) => event.type)).toContain("session.warning");
    expect(seen.some((event) => event.type === "session.error")).toBe(false);
  });

  test("abort (or no opinion) lets the failure end the prompt; the hook is asked before session.error", async () => {
    const session = await client.createSession({
      hooks: {
        onErrorOccurred: () => ({ errorHandling: "abort", userNotification: "The model is down." }),
      },
    });
    fixture.model.enqueue({ status: 500, body: { error: { message: "the model is down" } } });
    await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/model is down/);
    const stored = ofLastPrompt(await storedEvents(session));
    expect(stored.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
      "session.info",
      "session.error",
    ]);
  });
});
