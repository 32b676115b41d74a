import { describe, expect } from "vitest";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES, type HarnessOptions } from "../support/harness.js";
import { dataOf } from "./helpers.js";

// Session 25's trial: a model server that reset the connection after taking the request was
// reported in the HTTP layer's words, "Cannot connect to API: socket hang up", as if it had never
// been reached. A reset is said as what it is, on every wire: before any byte of the answer, the
// server closed the connection after the request was sent; during the answer (here right after
// its headers), the stream broke off. Both are retried while nothing has been shown: a model
// request changes nothing but the bill, and a reset before the answer is what a server or proxy
// that restarts does (the AI SDK and the vendors' SDKs retry it too).

const MODELS: Array<[string, Wire, HarnessOptions]> = [
  ["openai-compatible", "openai-chat", { model: "openai-compatible:fake-model" }],
  ["openai-chat", "openai-chat", { model: "openai-chat:gpt-4.1" }],
  ["openai-responses", "openai-responses", { wire: "openai-responses" }],
  ["anthropic", "anthropic", { wire: "anthropic" }],
];

/** What is said of a connection closed before the answer, with the HTTP layer's word for how. */
const closedBeforeAnswer = (detail: string) =>
  `the model server closed the connection after the request was sent, before answering (${detail})`;
const DURING = "the model's stream broke off: the connection closed before the reply was complete";

/** A TCP reset, and a plain close (FIN), before any byte of the answer; what Node says of each. */
const HOW = [
  ["reset", "read ECONNRESET"],
  ["close", "socket hang up"],
] as const;

describe.each(MODELS)("%s: the server resets the connection", (_name, _wire, options) => {
  test.for(HOW)(
    "before answering (%s): said so, retried, then answered",
    async ([by, detail], { openHarness }) => {
      const harness = await openHarness({ ...options, tuning: FAST_RETRIES });
      harness.server.enqueue({ reset: "before-answer", by }, { text: "ok" });
      expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
      expect(dataOf(await harness.persisted(), "assistant.retry")).toEqual([
        expect.objectContaining({
          attempt: 1,
          errorType: "network",
          errorMessage: closedBeforeAnswer(detail),
        }),
      ]);
      expect(harness.server.requests.map((request) => request.status)).toEqual([0, 200]);
    },
  );

  test("before answering, every time: the prompt's error says so after the retries", async ({
    openHarness,
  }) => {
    const tuning = { retry: { ...FAST_RETRIES.retry, maxRetries: 1 } };
    const harness = await openHarness({ ...options, tuning });
    harness.server.enqueue({ reset: "before-answer" }, { reset: "before-answer" });
    const outcome = await harness.prompt("hello");
    const message = closedBeforeAnswer("read ECONNRESET");
    expect(outcome).toMatchObject({ error: { errorType: "network", message } });
    expect(dataOf(await harness.persisted(), "session.error")).toEqual([
      expect.objectContaining({ errorType: "network", message }),
    ]);
    expect(harness.server.requests).toHaveLength(2);
  });

  test("right after the answer's headers: the stream broke off, retried", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ ...options, tuning: FAST_RETRIES });
    harness.server.enqueue({ text: "lost", breakAfterEvents: 0, breakBy: "reset" }, { text: "ok" });
    expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
    expect(dataOf(await harness.persisted(), "assistant.retry")).toEqual([
      expect.objectContaining({ attempt: 1, errorType: "network", errorMessage: DURING }),
    ]);
  });
});
