import type { ProviderTuning } from "../../src/llm/models.js";
import type { ErrorReply } from "../support/fake-model-types.js";

/** The replies and tuning the retry tests share (retries.test.ts, retries-before-content.test.ts). */

/** Anthropic's `overloaded_error` body, as a 529 answer or an event in the stream carries it. */
export const overloadedBody = {
  type: "error",
  error: { type: "overloaded_error", message: "Overloaded" },
};

/** A 529 `overloaded_error` answer. */
export const overloaded: ErrorReply = { status: 529, body: overloadedBody };

/** Retries fast enough for tests; the delays the events report are computed, not measured. */
export function tuning(retry: NonNullable<ProviderTuning["retry"]>): ProviderTuning {
  return { retry: { initialDelayMs: 5, maxDelayMs: 50, maxRetries: 5, ...retry } };
}
