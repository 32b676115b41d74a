import { describe, expect } from "vitest";
import type { ErrorReply } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { type HarnessOptions, shape } from "../support/harness.js";
import { countOf, dataOf, statuses, waitForEvent } from "./helpers.js";
import { overloaded, tuning } from "./retry-replies.js";

/** Case 18 names the Anthropic and the OpenAI wire; OpenAI Chat comes in two SDK packages. */
const MODELS = [
  ["openai-compatible", { wire: "openai-chat", model: "openai-compatible:fake-model" }],
  ["openai-chat", { wire: "openai-chat", model: "openai-chat:gpt-4.1" }],
  ["anthropic", { wire: "anthropic", model: "anthropic:claude-fake" }],
] as const satisfies ReadonlyArray<readonly [string, HarnessOptions]>;

function rateLimited(headers: Record<string, string>): ErrorReply {
  return {
    status: 429,
    headers,
    body: { error: { message: "Rate limit reached", type: "rate_limit_error" } },
  };
}

const unavailable = (headers: Record<string, string> = {}): ErrorReply => ({
  status: 503,
  headers,
  body: { error: { message: "Service Unavailable", type: "api_error" } },
});

describe("case 18 test A: 429 → 529 → 503 → ok, waiting as the server asks", () => {
  // The case's real `retry-after: 2`; its `retry-after-ms: 1500` is scaled to 500 to save time.
  test("anthropic, with retry-after: 2 and retry-after-ms: 500", async ({ openHarness }) => {
    const harness = await openHarness({
      wire: "anthropic",
      tuning: tuning({ initialDelayMs: 100, maxDelayMs: 1_000 }),
    });
    harness.server.enqueue(
      rateLimited({ "retry-after": "2" }),
      overloaded,
      unavailable({ "retry-after-ms": "500" }),
      { text: "ok" },
    );
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([429, 529, 503, 200]);
    const retries = dataOf(await harness.persisted(), "assistant.retry");
    expect(retries).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 429, errorType: "rate_limit" }),
      expect.objectContaining({ attempt: 2, statusCode: 529, errorType: "overloaded" }),
      expect.objectContaining({ attempt: 3, statusCode: 503, errorType: "server" }),
    ]);
    // Header larger than the backoff: the header wins.
    expect(retries[0]?.delayMs).toBe(2_000);
    // No header: the second backoff step, 200 ms ± 20 % jitter.
    expect(retries[1]?.delayMs).toBeGreaterThanOrEqual(160);
    expect(retries[1]?.delayMs).toBeLessThanOrEqual(240);
    // The third backoff step (400 ms ± 20 %) is below the header: the header wins again.
    expect(retries[2]?.delayMs).toBe(500);
    expect(harness.events.at(-2)).toMatchObject({
      type: "assistant.turn_end",
      data: { status: "completed" },
    });
  });

  // Scaled down (the seconds form of the header is covered above and in errors.test.ts).
  test.for(MODELS.slice(0, 2))(
    "%s, with retry-after-ms: 150 and 200",
    async ([_name, options], { openHarness }) => {
      const harness = await openHarness({
        ...options,
        tuning: tuning({ initialDelayMs: 25, maxDelayMs: 500 }),
      });
      harness.server.enqueue(
        rateLimited({ "retry-after-ms": "150" }),
        overloaded,
        // Above the third backoff step (100 ms ± 20 %), so the header decides.
        unavailable({ "retry-after-ms": "200" }),
        { text: "ok" },
      );
      expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
      expect(statuses(harness)).toEqual([429, 529, 503, 200]);
      const delays = dataOf(await harness.persisted(), "assistant.retry").map(
        (retry) => retry.delayMs,
      );
      expect(delays[0]).toBe(150);
      expect(delays[1]).toBeGreaterThanOrEqual(40);
      expect(delays[1]).toBeLessThanOrEqual(60);
      expect(delays[2]).toBe(200);
    },
  );
});

describe("case 18: retry progress and history", () => {
  test("retries are surfaced as events, persisted, and add nothing to the model's history", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: tuning({ initialDelayMs: 5 }) });
    harness.server.enqueue(overloaded, unavailable(), {
      text: "ok",
      usage: { input: 9, output: 1 },
    });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    const retryEvents = shape(harness.events).filter((event) => event.type === "assistant.retry");
    expect(retryEvents).toEqual([
      {
        type: "assistant.retry",
        data: {
          turnId: "turn-1",
          attempt: 1,
          statusCode: 529,
          errorType: "overloaded",
          errorMessage: "HTTP 529: Overloaded",
          delayMs: expect.any(Number),
        },
      },
      {
        type: "assistant.retry",
        data: {
          // Each attempt is its own turn; a retry names the failed attempt's turn.
          turnId: "turn-2",
          attempt: 2,
          statusCode: 503,
          errorType: "server",
          errorMessage: "HTTP 503: Service Unavailable",
          delayMs: expect.any(Number),
        },
      },
    ]);
    const persisted = await harness.persisted();
    const [overloadedRetry, unavailableRetry] = retryEvents;
    expect(shape(persisted).slice(1)).toEqual([
      { type: "user.message", data: { content: "hi", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "failed", errorType: "overloaded" },
      },
      overloadedRetry,
      { type: "assistant.turn_start", data: { turnId: "turn-2" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-2", status: "failed", errorType: "server" },
      },
      unavailableRetry,
      { type: "assistant.turn_start", data: { turnId: "turn-3" } },
      {
        type: "assistant.message",
        data: { messageId: "message-1", content: "ok", toolRequests: [], finishReason: "stop" },
      },
      {
        type: "assistant.usage",
        data: {
          model: "openai-compatible:fake-model",
          turnId: "turn-3",
          inputTokens: 9,
          outputTokens: 1,
          cacheReadTokens: 0,
          reasoningTokens: 0,
        },
      },
      {
        type: "assistant.turn_end",
        data: {
          turnId: "turn-3",
          status: "completed",
          finishReason: "stop",
          stopReason: "end_turn",
        },
      },
    ]);
    // Three requests, three turns: every request is a turn, failed attempts included.
    expect(countOf(persisted, "assistant.turn_start")).toBe(harness.server.requests.length);
    const [lastRequest] = harness.server.requests.slice(-1);
    expect(lastRequest?.body).toMatchObject({
      messages: [{ role: "system" }, { role: "user", content: "hi" }],
    });
  });

  test("a Retry-After shorter than the backoff does not shorten the wait", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: tuning({ initialDelayMs: 200, maxDelayMs: 200 }) });
    harness.server.enqueue(rateLimited({ "retry-after-ms": "10" }), { text: "ok" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    const [retry] = dataOf(harness.events, "assistant.retry");
    expect(retry?.delayMs).toBeGreaterThanOrEqual(160);
  });

  test("the backoff doubles per retry and stays under maxDelayMs", async ({ openHarness }) => {
    const harness = await openHarness({
      tuning: tuning({ initialDelayMs: 10, maxDelayMs: 50, maxRetries: 5 }),
    });
    harness.server.enqueue(overloaded, overloaded, overloaded, overloaded, overloaded, {
      text: "ok",
    });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    const delays = dataOf(harness.events, "assistant.retry").map((retry) => retry.delayMs);
    const expected = [10, 20, 40, 50, 50];
    expect(delays).toHaveLength(expected.length);
    delays.forEach((delay, index) => {
      const base = expected[index] ?? 0;
      expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
      expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
    });
  });
});

describe.each(MODELS)("case 18 (%s)", (_name, options) => {
  test("test B: 529 every time stops after maxRetries and fails naming overloaded", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tuning: tuning({ maxRetries: 3 }) });
    harness.server.setResponder(() => overloaded);
    const outcome = await harness.prompt("hi");
    expect(outcome).toEqual({
      error: {
        errorType: "overloaded",
        statusCode: 529,
        message: expect.stringMatching(/overloaded/i),
      },
    });
    expect(harness.server.requests).toHaveLength(4);
    const persisted = await harness.persisted();
    expect(dataOf(persisted, "assistant.retry").map((retry) => retry.attempt)).toEqual([1, 2, 3]);
    expect(dataOf(persisted, "session.error")).toEqual(["error" in outcome ? outcome.error : {}]);
    expect(countOf(persisted, "assistant.message")).toBe(0);
    // Four requests, four turns, each ended failed.
    expect(countOf(persisted, "assistant.turn_start")).toBe(4);
    expect(dataOf(persisted, "assistant.turn_end").map((end) => end.status)).toEqual([
      "failed",
      "failed",
      "failed",
      "failed",
    ]);
    harness.server.setResponder(undefined);
    harness.server.enqueue({ text: "fine" });
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness).at(-1)).toBe(200);
  });

  test("test C: a Retry-After of an hour fails at once with the requested delay", async ({
    openHarness,
  }) => {
    // The default cap (60 s): only the retry delays are shortened.
    const harness = await openHarness({ ...options, tuning: tuning({}) });
    harness.server.enqueue(rateLimited({ "retry-after": "3600" }), { text: "fine" });
    // Answered without a retry (one that waited the hour would end the test by its timeout).
    const outcome = await harness.prompt("hi");
    expect(outcome).toEqual({
      error: {
        errorType: "rate_limit",
        statusCode: 429,
        message: expect.stringContaining("retry after 3600 s, longer than the 60 s we wait"),
      },
    });
    expect(harness.server.requests).toHaveLength(1);
    const persisted = await harness.persisted();
    expect(countOf(persisted, "assistant.retry")).toBe(0);
    expect(dataOf(persisted, "session.error")).toEqual(["error" in outcome ? outcome.error : {}]);
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
  });

  test("test D: cancelling during the Retry-After wait ends the prompt at once, with no further request", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tuning: tuning({}) });
    harness.server.enqueue(rateLimited({ "retry-after": "5" }), { text: "never sent" });
    const controller = new AbortController();
    const retried = waitForEvent(harness, (event) => event.type === "assistant.retry");
    const running = harness.prompt("hi", controller.signal);
    await retried;
    controller.abort();
    // Cancelled, not answered by the request the wait would have ended in; none follows it.
    expect(await running).toEqual({ stopReason: "cancelled" });
    expect(harness.server.requests).toHaveLength(1);
    expect(shape(await harness.persisted()).slice(1)).toEqual([
      { type: "user.message", data: { content: "hi", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "failed", errorType: "rate_limit" },
      },
      {
        type: "assistant.retry",
        data: {
          turnId: "turn-1",
          attempt: 1,
          statusCode: 429,
          errorType: "rate_limit",
          // Anthropic's SDK reads only its own error shape, else the status text: then the
          // body's own message follows it (http-status-words.ts).
          errorMessage: expect.stringMatching(
            /^HTTP 429: (Rate limit reached|Too Many Requests \(Rate limit reached\))$/,
          ),
          delayMs: 5_000,
        },
      },
      { type: "abort", data: { reason: "cancelled by the user" } },
    ]);
    expect(harness.events.at(-1)).toMatchObject({
      type: "session.idle",
      data: { stopReason: "cancelled" },
    });
    // The queued reply was never taken, so the next prompt gets it at once.
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([429, 200]);
  });

  test.for([400, 401, 403, 404])(
    "test E: HTTP %i is never retried",
    async (status, { openHarness }) => {
      const harness = await openHarness({ ...options, tuning: tuning({}) });
      harness.server.setResponder(() => ({
        status,
        body: { error: { message: "no", type: "invalid_request_error" } },
      }));
      const outcome = await harness.prompt("hi");
      expect(outcome).toMatchObject({ error: { statusCode: status } });
      expect(harness.server.requests).toHaveLength(1);
      expect(countOf(harness.events, "assistant.retry")).toBe(0);
    },
  );
});

describe("case 18: the Retry-After cap", () => {
  test("above a small cap: fails at once, stating the server's delay", async ({ openHarness }) => {
    const harness = await openHarness({ tuning: tuning({ retryAfterCapMs: 500 }) });
    harness.server.enqueue(rateLimited({ "retry-after": "2" }), { text: "fine" });
    // Failed, not answered "fine" by the retry that waited the 2 s the server asked for.
    const outcome = await harness.prompt("hi");
    expect(outcome).toMatchObject({
      error: {
        errorType: "rate_limit",
        message: expect.stringContaining("retry after 2 s, longer than the 0.5 s we wait"),
      },
    });
    expect(harness.server.requests).toHaveLength(1);
  });

  test("just above the cap: the message gives the exact delay, not a rounded one", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tuning: tuning({ retryAfterCapMs: 1_000 }) });
    harness.server.enqueue(rateLimited({ "retry-after-ms": "1400" }));
    expect(await harness.prompt("hi")).toMatchObject({
      error: { message: expect.stringContaining("retry after 1.4 s, longer than the 1 s we wait") },
    });
  });

  test("at or below the cap: waits the full requested time", async ({ openHarness }) => {
    const harness = await openHarness({ tuning: tuning({ retryAfterCapMs: 300 }) });
    harness.server.enqueue(rateLimited({ "retry-after-ms": "300" }), { text: "fine" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(dataOf(harness.events, "assistant.retry")[0]?.delayMs).toBe(300);
  });
});
