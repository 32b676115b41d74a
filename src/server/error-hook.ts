/**
 * The app's `errorOccurred` hook (the Copilot SDK's `onErrorOccurred`), asked when a model
 * request of a prompt failed after turnloop's own retries, before the failure ends the prompt
 * (agent/decide-next.ts). What each output field does: protocol/hooks.ts
 * `ErrorOccurredOutput`. The Copilot SDK's docs give the fields' meaning (@github/copilot-sdk
 * 1.0.14, `docs/agent-author.md`: "How to handle the error", "Max retries", "Message shown to the
 * user") and no default retry count: turnloop's is {@link DEFAULT_HOOK_RETRIES}.
 */

import type { ModelFailureDecision } from "../agent/decide-next.js";
import type { EventInput, JsonObject } from "../events/events.js";
import type { ProviderFailure } from "../llm/provider.js";
import type { ErrorOccurredOutput } from "../protocol/hooks.js";

/** Retries of a `retry` without `retryCount`. */
export const DEFAULT_HOOK_RETRIES = 1;
/** The most retries one `retry` gets, whatever `retryCount` asks. */
export const MAX_HOOK_RETRIES = 5;

/** The part of the hook runner this needs (hooks.ts `HookRunner.call`). */
interface HookCaller {
  call(hookType: "errorOccurred", input: JsonObject, signal?: AbortSignal): Promise<unknown>;
}

/**
 * Asks `errorOccurred` {error, errorContext: "model_call", recoverable} about `failure`: a
 * `userNotification` is emitted as `session.info` (`infoType: "notification"`, Copilot's
 * category), which the app receives and the log keeps, before what `errorHandling` decides.
 */
export async function askErrorOccurred(
  hooks: HookCaller,
  emit: (event: EventInput) => void,
  failure: ProviderFailure,
  signal: AbortSignal,
): Promise<ModelFailureDecision> {
  const input = {
    error: failure.message,
    errorContext: "model_call",
    recoverable: isRecoverable(failure.errorType),
  };
  const output = (await hooks.call("errorOccurred", input, signal)) as
    | ErrorOccurredOutput
    | undefined;
  const message = output?.userNotification;
  if (typeof message === "string" && message.trim() !== "") {
    emit({ type: "session.info", data: { infoType: "notification", message } });
  }
  return decisionOf(output, failure);
}

/**
 * `retry`: send again, `retryCount` times (a whole number from 1 to {@link MAX_HOOK_RETRIES};
 * absent: {@link DEFAULT_HOOK_RETRIES}; 0: no retry); `skip`: end the prompt without a failure;
 * `abort`, anything else or no output: the failure ends the prompt, as without the hook.
 */
function decisionOf(
  output: ErrorOccurredOutput | undefined,
  failure: ProviderFailure,
): ModelFailureDecision {
  switch (output?.errorHandling) {
    case "retry": {
      const count = output.retryCount;
      const retries =
        typeof count === "number" && Number.isFinite(count)
          ? Math.min(Math.max(Math.trunc(count), 0), MAX_HOOK_RETRIES)
          : DEFAULT_HOOK_RETRIES;
      return retries === 0 ? { handling: "fail" } : { handling: "retry", retries };
    }
    case "skip":
      return {
        handling: "skip",
        message: `The model request failed (${failure.message}); the app's errorOccurred hook skipped it, so the prompt ended without a reply.`,
      };
    default:
      return { handling: "fail" };
  }
}

/**
 * Whether sending a request that failed this way again may succeed: the kinds turnloop's own
 * retry policy retries (llm/errors.ts: rate limits, overload, server errors, the network, a
 * stalled stream), here after those retries were used up or not allowed once the reply began.
 */
function isRecoverable(errorType: ProviderFailure["errorType"]): boolean {
  return ["rate_limit", "overloaded", "server", "network", "stalled"].includes(errorType);
}
