/**
 * When and how long a failed model request is retried: the policy, the backoff before each retry,
 * and the server's `Retry-After`. The failure's class (retryable or not) is errors.ts's.
 */
import type { ClassifiedFailure } from "./errors.js";

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). Returns ms or undefined. */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) {
    return undefined;
  }
  const milliseconds = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) {
    return milliseconds;
  }
  const value = headers["retry-after"];
  if (value === undefined) {
    return undefined;
  }
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return seconds * 1000;
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

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
