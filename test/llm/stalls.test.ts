import { describe, expect, vi } from "vitest";
import { AiSdkProvider } from "../../src/llm/ai-sdk-provider.js";
import type { ProviderTuning } from "../../src/llm/models.js";
import type { LlmEvent, ModelRequest } from "../../src/llm/provider.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { RawPiece, Reply } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { type Harness, type HarnessOptions, shape } from "../support/harness.js";
import { normaliseMessages } from "../support/normalise-request.js";
import { CHAT_DONE, chatDelta, countOf, dataOf, eventually, waitForEvent } from "./helpers.js";

// Long enough that a loaded machine delivers the first chunk well within it (the stall must come
// after it): 1 s was not, on two cores shared by a dozen busy processes.
const IDLE_MS = 2_000;
const TUNING: ProviderTuning = {
  idleTimeoutMs: IDLE_MS,
  retry: { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 3 },
};

const WIRES = [
  ["openai-compatible", { wire: "openai-chat" }],
  ["anthropic", { wire: "anthropic" }],
] as const satisfies ReadonlyArray<readonly [string, HarnessOptions]>;

/** R1 of test A: one text chunk "thinking about", then the connection stays open and silent. */
function textThenSilence(wire: "openai-chat" | "anthropic"): Reply {
  return wire === "anthropic"
    ? // message_start, ping, content_block_start, the first text delta; then nothing.
      { text: ["thinking about", " never sent"], stallAfterEvents: 4 }
    : { raw: [chatDelta({ role: "assistant", content: "thinking about" }), { hold: true }] };
}

/**
 * Runs `prompt` with the idle clock (the watchdog's `setInterval` and `process.hrtime`) faked;
 * `stall` moves it past the idle limit at once, so a test passes the limit when its gate opens
 * instead of waiting it out. The clock is real again once `prompt` settles.
 */
async function withIdleClock<T>(prompt: (stall: () => void) => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "hrtime"] });
  try {
    return await prompt(() => vi.advanceTimersByTime(IDLE_MS + 500));
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Passes the idle limit on the faked clock (`stall` of {@link withIdleClock}) once the first
 * request has reached the server, and again until the agent gives that request up (its
 * `assistant.retry`): what the client reads after a pass (the headers, the events before the
 * silence) restarts the clock. The retry's request starts its own clock after that event, so no
 * pass reaches it.
 */
async function stallUntilRetried(harness: Harness, stall: () => void): Promise<void> {
  expect(await eventually(() => harness.server.requests.length === 1)).toBe(true);
  const retried = () => harness.events.some((event) => event.type === "assistant.retry");
  while (!retried()) {
    stall();
    await eventually(retried, 50);
  }
}

/**
 * The prompt after a stalled one: accepted at once (no turn left "in progress"), and answered from
 * a healthy server.
 */
async function nextPromptWorksAtOnce(harness: Harness): Promise<void> {
  expect(harness.session.busy).toBe(false);
  harness.server.enqueue({ text: "next" });
  expect(await harness.prompt("id 3")).toEqual({ stopReason: "end_turn" });
  expect(harness.server.requests.at(-1)?.status).toBe(200);
}

describe.each(WIRES)("case 20 (%s)", (_name, options) => {
  test("test A: text was shown, then silence: the prompt fails as stalled, without a retry", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tuning: TUNING });
    // Only R1 is scripted: a retry would get the fake server's 500 and show in the request count.
    harness.server.enqueue(textThenSilence(options.wire));
    // The idle limit passes once the text is shown, not before: the stall comes after it.
    const outcome = await withIdleClock(async (stall) => {
      const shown = waitForEvent(harness, (event) => event.type === "assistant.message_delta");
      const running = harness.prompt("id 2");
      await shown;
      stall();
      return await running;
    });
    expect(outcome).toEqual({
      error: { errorType: "stalled", message: "the model stream stalled: no data for 2 s" },
    });
    expect(harness.server.requests).toHaveLength(1);
    // The agent closed the silent connection itself (the server notices a moment later).
    expect(await eventually(() => harness?.server.requests[0]?.clientClosed === true)).toBe(true);
    expect(
      dataOf(harness.events, "assistant.message_delta").map((delta) => delta.deltaContent),
    ).toEqual(["thinking about"]);
    expect(shape(await harness.persisted()).slice(1)).toEqual([
      { type: "user.message", data: { content: "id 2", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        // What the user saw stays, marked interrupted, with the failure (issue 11).
        type: "assistant.message",
        data: {
          messageId: "message-1",
          content: "thinking about",
          toolRequests: [],
          finishReason: "other",
          interrupted: true,
          error: "error" in outcome ? outcome.error : {},
        },
      },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "failed", errorType: "stalled" },
      },
      { type: "session.error", data: "error" in outcome ? outcome.error : {} },
    ]);
    expect(harness.events.at(-1)).toMatchObject({ type: "session.idle", data: {} });
    await nextPromptWorksAtOnce(harness);
    // The half-shown reply is history, as a valid assistant message between the two prompts.
    expect(
      normaliseMessages(options.wire, harness.server.requests[1]?.body ?? null).filter(
        (message) => message.role === "assistant",
      ),
    ).toEqual([expect.objectContaining({ role: "assistant" })]);
    expect(JSON.stringify(harness.server.requests[1]?.body)).toContain("thinking about");
  });

  test('test B: headers only, then silence: retried once, answered end_turn "done"', async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tuning: TUNING });
    harness.server.enqueue({ raw: [{ hold: true }] }, { text: "done" });
    const outcome = await withIdleClock(async (stall) => {
      const running = harness.prompt("id 2");
      await stallUntilRetried(harness, stall);
      return await running;
    });
    expect(outcome).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests).toHaveLength(2);
    expect(await eventually(() => harness?.server.requests[0]?.clientClosed === true)).toBe(true);
    const persisted = await harness.persisted();
    expect(shape(persisted).filter((event) => event.type === "assistant.retry")).toEqual([
      {
        type: "assistant.retry",
        data: {
          turnId: "turn-1",
          attempt: 1,
          errorType: "stalled",
          // The limit is passed as soon as the request reaches the server: the client may not
          // have read the headers yet, and then says no response came (llm/model-attempt.ts).
          errorMessage: expect.stringMatching(
            /^the model (stream stalled: no data|server sent no response \(not even its headers\) within) (for )?2 s$/,
          ),
          delayMs: expect.any(Number),
        },
      },
    ]);
    expect(dataOf(persisted, "assistant.message").map((message) => message.content)).toEqual([
      "done",
    ]);
    // Every request is a turn: the stalled attempt ended failed, then the retry answered.
    expect(countOf(persisted, "assistant.turn_start")).toBe(2);
    expect(dataOf(persisted, "assistant.turn_end").map((end) => end.status)).toEqual([
      "failed",
      "completed",
    ]);
    await nextPromptWorksAtOnce(harness);
  });

  test("test D: cancel during the stall ends the prompt cancelled at once", async ({
    openHarness,
  }) => {
    // An idle limit longer than the test's timeout: only the cancel can end the stalled stream.
    const harness = await openHarness({
      ...options,
      tuning: { ...TUNING, idleTimeoutMs: 600_000 },
    });
    harness.server.enqueue(textThenSilence(options.wire));
    const controller = new AbortController();
    const shown = waitForEvent(harness, (event) => event.type === "assistant.message_delta");
    const running = harness.prompt("id 2", controller.signal);
    await shown;
    controller.abort();
    expect(await running).toEqual({ stopReason: "cancelled" });
    expect(harness.server.requests).toHaveLength(1);
    expect(await eventually(() => harness?.server.requests[0]?.clientClosed === true)).toBe(true);
    const persisted = await harness.persisted();
    // Whether the shown text is kept as an interrupted message is the loop's business (case 02);
    // here: the turn ends cancelled, then the abort, and nothing claims usage or an error.
    expect(shape(persisted).slice(-2)).toEqual([
      { type: "assistant.turn_end", data: { turnId: "turn-1", status: "cancelled" } },
      { type: "abort", data: { reason: "cancelled by the user" } },
    ]);
    expect(countOf(persisted, "assistant.usage")).toBe(0);
    expect(countOf(persisted, "session.error")).toBe(0);
    expect(countOf(persisted, "assistant.retry")).toBe(0);
    await nextPromptWorksAtOnce(harness);
  });
});

describe("case 20 test C: SSE comments are not progress", () => {
  test("a stream of `: ping` comments and no data stalls after the idle limit and is retried", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: TUNING });
    // On the real clock: a faked one passed at once would stall between two pings even were they
    // progress.
    // Pings for three idle limits (120 × 50 ms), then an answer: were pings progress, "too late" would be the
    // answer; they are not, so the stream stalls while they go on and the retry answers.
    const pings: RawPiece[] = [];
    for (let index = 0; index < 120; index++) {
      pings.push(": ping\n\n", { holdMs: 50 });
    }
    const tooLate = [chatDelta({ role: "assistant", content: "too late" }, "stop"), CHAT_DONE];
    harness.server.enqueue({ raw: [...pings, ...tooLate] }, { text: "done" });
    expect(await harness.prompt("id 2")).toEqual({ stopReason: "end_turn" });
    expect(await eventually(() => harness?.server.requests[0]?.clientClosed === true)).toBe(true);
    expect(dataOf(harness.events, "assistant.retry")).toEqual([
      expect.objectContaining({
        attempt: 1,
        errorType: "stalled",
        errorMessage: "the model stream stalled: no data for 2 s",
      }),
    ]);
    expect(
      dataOf(harness.events, "assistant.message_delta").map((delta) => delta.deltaContent),
    ).toEqual(["done"]);
    await nextPromptWorksAtOnce(harness);
  });

  test("an anthropic stream that stalls after message_start and ping (nothing shown) is retried", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tuning: TUNING });
    harness.server.enqueue({ text: "lost", stallAfterEvents: 2 }, { text: "done" });
    const outcome = await withIdleClock(async (stall) => {
      const running = harness.prompt("id 2");
      await stallUntilRetried(harness, stall);
      return await running;
    });
    expect(outcome).toEqual({ stopReason: "end_turn" });
    expect(dataOf(harness.events, "assistant.retry")).toEqual([
      expect.objectContaining({ attempt: 1, errorType: "stalled" }),
    ]);
    expect(
      dataOf(harness.events, "assistant.message_delta").map((delta) => delta.deltaContent),
    ).toEqual(["done"]);
  });

  test("a server that stalls every time fails as stalled after maxRetries", async ({
    openHarness,
  }) => {
    // The harness keeps this limit for the healthy prompt after: 200 ms was too short for a
    // loaded machine to deliver its first chunk.
    const harness = await openHarness({
      tuning: { ...TUNING, retry: { ...TUNING.retry, maxRetries: 1 } },
    });
    harness.server.setResponder(() => ({ raw: [{ hold: true }] }));
    // The idle limit passes once each request has reached the server.
    const outcome = await withIdleClock(async (stall) => {
      const running = harness.prompt("id 2");
      for (const count of [1, 2]) {
        expect(await eventually(() => harness?.server.requests.length === count)).toBe(true);
        stall();
      }
      return await running;
    });
    expect(outcome).toEqual({
      error: {
        errorType: "stalled",
        message: expect.stringMatching(/stream stalled|sent no response/),
      },
    });
    expect(harness.server.requests).toHaveLength(2);
    expect(
      await eventually(
        () => harness?.server.requests.every((request) => request.clientClosed) === true,
      ),
    ).toBe(true);
    const persisted = await harness.persisted();
    expect(countOf(persisted, "assistant.retry")).toBe(1);
    expect(dataOf(persisted, "session.error")).toEqual(["error" in outcome ? outcome.error : {}]);
    expect(countOf(persisted, "assistant.turn_start")).toBe(2);
    expect(dataOf(persisted, "assistant.turn_end")).toEqual([
      { turnId: expect.any(String), status: "failed", errorType: "stalled" },
      { turnId: expect.any(String), status: "failed", errorType: "stalled" },
    ]);
    harness.server.setResponder(undefined);
    await nextPromptWorksAtOnce(harness);
  });
});

describe("the idle clock", () => {
  test("starts when the request is sent, not while the provider package loads", async () => {
    // A cold start on a busy machine can take longer than the idle limit to import the SDK; that
    // is not the server being silent, and must not cost a request or show up as a stall. The
    // watchdog's clock (process.hrtime, setInterval) is faked: the load lasts three limits on
    // it, and it stands still once the request goes out, so no loaded machine can stall the reply.
    const server = await startFakeModelServer();
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "hrtime"] });
    try {
      server.enqueue({ text: "ok" });
      const loadStarted = gate();
      const loaded = gate();
      const provider = new AiSdkProvider({
        id: "openai-compatible:fake-model",
        idleTimeoutMs: 1_000,
        retry: { maxRetries: 0 },
        createModel: async () => {
          loadStarted.open();
          await loaded.opened;
          const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
          return createOpenAICompatible({
            name: "openai-compatible",
            baseURL: `${server.url}/v1`,
            apiKey: "test-key",
          }).chatModel("fake-model");
        },
      });
      const request: ModelRequest = {
        system: "s",
        messages: [{ role: "user", content: "hi" }],
        tools: [],
      };
      const events: LlmEvent[] = [];
      const streamed = (async () => {
        for await (const event of provider.stream(request, new AbortController().signal)) {
          events.push(event);
        }
      })();
      await loadStarted.opened;
      // A clock started before the load would see three limits pass without progress here.
      vi.advanceTimersByTime(3_000);
      loaded.open();
      await streamed;
      expect(events.map((event) => event.type)).toEqual(["request_start", "text_delta", "done"]);
      expect(server.requests).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await server.close();
    }
  });
});
