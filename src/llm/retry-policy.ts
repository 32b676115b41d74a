/** The retry policy of model requests and its backoff (case 18). */

import type { ClassifiedFailure } from "./errors.js";

/** When and how long to retry a failed model request (case 18). All times in ms. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubles each retry, with ±20 % jitter. */
  initialDelayMs: number;
  /** Longest backoff delay. */
  maxDelayMs: number;
  /** A `Retry-After` above this fails at once with the server's delay in the message. */
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  retryAfterCapMs: 60_000,
};

/**
 * Backoff in ms for retry number `attempt` (0-based) under `policy`: exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, ±20 % jitter, never below the server's Retry-After;
 * undefined when the Retry-After exceeds `retryAfterCapMs`.
 */
export function delayBeforeRetry(
  policy: RetryPolicy,
  attempt: number,
  failure: ClassifiedFailure,
): number | undefined {
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.retryAfterCapMs) {
    return undefined;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  const jittered = exponential * (0.8 + Math.random() * 0.4);
  return Math.round(Math.max(jittered, failure.retryAfterMs ?? 0));
}
