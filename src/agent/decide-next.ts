import type { EventInput, StopReason } from "../events/events.js";
import type { AssistantReply, ProviderFailure } from "../llm/provider.js";
import type { TurnResult } from "./model-turn.js";
import type { RepetitionGuard } from "./repetition-guard.js";
import type { ToolCallOutcome } from "./tool-calls.js";

/** What the loop does after a model turn (DESIGN.md, "The loop"). */
export type NextStep =
  /** Request the model again with the tool results. */
  | { kind: "request" }
  /** Autopilot: add the nudge as a `user.message`, then request the model again. */
  | { kind: "nudge" }
  /**
   * End the prompt with an ACP stop reason. `autopilotStopped` is set when autopilot used up its
   * nudges before the model called `task_complete`; `repeated` when the model repeated itself;
   * `emptyAnswer`, the warning's words, when the model finished with no text.
   */
  | {
      kind: "stop";
      stopReason: StopReason;
      autopilotStopped?: "cap_reached";
      repeated?: true;
      emptyAnswer?: string;
    }
  /** End the prompt with a failure (ACP answers it with an error). */
  | { kind: "fail"; failure: ProviderFailure };

/** The `warningType` of the warning for a finished reply without text. */
export const EMPTY_ANSWER = "empty_answer";

/** Where the prompt stands after a turn. */
export interface LoopCounters {
  /** Model requests made for this prompt so far (the retries of one request count once). */
  turns: number;
  /** Autopilot nudges added for this prompt so far. */
  nudges: number;
  /** The repetition guard's verdict: the model repeated one call often enough to stop (case 27). */
  repeating: boolean;
  /** The prompt's signal has aborted. */
  cancelled: boolean;
}

/** The settings that bound a prompt (see `AgentSettings`). */
export interface LoopLimits {
  maxTurns: number;
  autopilot: boolean;
  maxAutopilotContinues: number;
  endAfterRejection?: boolean;
}

/**
 * Decides, from a turn's reply and its tool calls' outcomes (in call order; empty for a reply
 * without tool calls), whether the prompt goes on or stops, and why. Pure.
 *
 * A reply with tool calls, in this order: a cancel is `cancelled`; arguments cut at the output
 * limit are `max_tokens`; a rejected call under `endAfterRejection` is `end_turn`; a `stop`
 * effect (task_complete) is `end_turn`; a model repeating itself is `max_turn_requests`; else
 * the model is asked again. A reply without tool calls: see {@link decideAfterText}. Going on
 * is subject to {@link requestIfAllowed}.
 */
export function decideNext(
  reply: AssistantReply,
  outcomes: readonly ToolCallOutcome[],
  counters: LoopCounters,
  limits: LoopLimits,
): NextStep {
  if (reply.toolCalls.length === 0) {
    return decideAfterText(reply, counters, limits);
  }
  if (counters.cancelled) {
    return { kind: "stop", stopReason: "cancelled" };
  }
  if (reply.toolCalls.some((call) => call.argumentsError === "truncated")) {
    return { kind: "stop", stopReason: "max_tokens" };
  }
  if (limits.endAfterRejection && outcomes.some((outcome) => outcome.errorCode === "rejected")) {
    return { kind: "stop", stopReason: "end_turn" };
  }
  if (outcomes.some((outcome) => outcome.effects?.some((effect) => effect.type === "stop"))) {
    return { kind: "stop", stopReason: "end_turn" };
  }
  if (counters.repeating) {
    return { kind: "stop", stopReason: "max_turn_requests", repeated: true };
  }
  return requestIfAllowed({ kind: "request" }, counters, limits);
}

/**
 * How a reply without tool calls ends the prompt, checked in this order: a content filter is a
 * refusal even when the reply is empty; an empty reply that did not simply stop (e.g. a
 * malformed function call) is a `malformed_response` failure; a reply cut at the output limit is
 * `max_tokens`; in autopilot the model is nudged while nudges remain, then the prompt ends
 * `end_turn` with `autopilotStopped`; otherwise `end_turn`, with `emptyAnswer` when the reply
 * has no text (a user or script must tell an empty answer from one: trial of round 3, session 25).
 */
function decideAfterText(
  reply: AssistantReply,
  counters: LoopCounters,
  limits: LoopLimits,
): NextStep {
  if (reply.finishReason === "content-filter") {
    return { kind: "stop", stopReason: "refusal" };
  }
  if (
    reply.content.trim() === "" &&
    reply.finishReason !== "stop" &&
    reply.finishReason !== "length"
  ) {
    const message = `the model returned an empty reply (finish reason: ${reply.finishReason}), often a malformed function call`;
    return { kind: "fail", failure: { errorType: "malformed_response", message } };
  }
  if (reply.finishReason === "length") {
    return { kind: "stop", stopReason: "max_tokens" };
  }
  if (!limits.autopilot) {
    const emptyAnswer = emptyAnswerWords(reply);
    return {
      kind: "stop",
      stopReason: "end_turn",
      ...(emptyAnswer === undefined ? {} : { emptyAnswer }),
    };
  }
  if (counters.nudges < limits.maxAutopilotContinues) {
    return requestIfAllowed({ kind: "nudge" }, counters, limits);
  }
  return { kind: "stop", stopReason: "end_turn", autopilotStopped: "cap_reached" };
}

/** The warning for a finished reply without text, or undefined when it has text. */
function emptyAnswerWords(reply: AssistantReply): string | undefined {
  if (reply.content.trim() !== "") {
    return undefined;
  }
  return reply.reasoningParts.some((part) => part.text.trim() !== "")
    ? "the model returned only reasoning, no answer"
    : "the model returned an empty answer";
}

/**
 * `step` (another model request, nudged or not) unless the prompt may not send one: a cancel is
 * `cancelled`, and `maxTurns` requests made is `max_turn_requests`. Also checked before the
 * first request. A nudge that will not be sent is not added.
 */
export function requestIfAllowed(
  step: Extract<NextStep, { kind: "request" | "nudge" }>,
  counters: Pick<LoopCounters, "turns" | "cancelled">,
  limits: Pick<LoopLimits, "maxTurns">,
): NextStep {
  if (counters.cancelled) {
    return { kind: "stop", stopReason: "cancelled" };
  }
  if (counters.turns >= limits.maxTurns) {
    return { kind: "stop", stopReason: "max_turn_requests" };
  }
  return step;
}

/**
 * Records why the prompt stops after the turn being ended, before its `assistant.turn_end`, whose
 * `stopReason` this returns: that turn end is then the prompt's last stored event, where a
 * follower ends it (issue 22). The repetition guard's notice, autopilot's cap, an empty answer
 * (`session.warning`, `warningType` {@link EMPTY_ANSWER}). A cancel and a
 * failure are recorded after the turn instead (agent/loop.ts `conclude`).
 */
export function recordStop(
  emit: (event: EventInput) => void,
  step: NextStep,
  guard: RepetitionGuard,
  nudges: number,
): { stopReason?: StopReason } {
  if (step.kind !== "stop" || step.stopReason === "cancelled") {
    return {};
  }
  if (step.repeated === true) {
    emit(guard.stopNotice);
  }
  if (step.autopilotStopped !== undefined) {
    const data = { reason: step.autopilotStopped, continues: nudges };
    emit({ type: "session.autopilot_stopped", data });
  }
  if (step.emptyAnswer !== undefined) {
    emit({
      type: "session.warning",
      data: { warningType: EMPTY_ANSWER, message: step.emptyAnswer },
    });
  }
  return { stopReason: step.stopReason };
}

/*
 * A face's say over a model request that failed for good (after the provider's own retries and
 * compaction's replay), asked before the loop records the failure as the prompt's end: the SDK
 * server asks the app's `errorOccurred` hook (src/server/error-hook.ts). The loop calls
 * {@link requestAsking} for each of its requests; with nobody to ask, a failure stands at once.
 */

/** What to do about a model request that failed. */
export type ModelFailureDecision =
  /** The failure ends the prompt (`session.error`): what happens without a face's opinion. */
  | { handling: "fail" }
  /**
   * Send the request again, at most `retries` times (≥ 1); a retry that fails too uses the next
   * one without asking again, and the last one's failure ends the prompt.
   */
  | { handling: "retry"; retries: number }
  /**
   * End the prompt without a failure: a `session.warning` ({@link MODEL_CALL_SKIPPED}) with
   * `message` (the face's words) records the failure, and the prompt stops `end_turn`.
   */
  | { handling: "skip"; message: string };

/** Asks a face about `failure` (one per failed request); `signal` is the prompt's. */
export type ModelFailureCallback = (
  failure: ProviderFailure,
  signal: AbortSignal,
) => Promise<ModelFailureDecision>;

/** The `warningType` of the warning a skipped failure leaves (and a follower reads as the end). */
export const MODEL_CALL_SKIPPED = "model_call_skipped";

/** The loop's settings for it (part of `AgentSettings`). */
export interface ModelFailureSettings {
  /**
   * Asked when a model request of the loop failed, before the failure is recorded as the
   * prompt's end; absent: every such failure ends the prompt.
   */
  onModelFailure?: ModelFailureCallback;
}

/** How a request of the loop ended: its reply, or how the prompt ends without one. */
export type RequestResult =
  | Extract<TurnResult, { kind: "reply" }>
  | Extract<NextStep, { kind: "stop" | "fail" }>;

/** A request's end as {@link retried} sees it: a {@link TurnResult}, or a failure skipped. */
type Attempted = TurnResult | { kind: "skipped" };

/**
 * Runs `attempt` (one model request of the loop, each call a new turn) and, when it fails and
 * the settings say whom to ask, asks before the failure stands. A retry follows the failed
 * attempt's `assistant.turn_end` (status `failed`, kept with whatever partial reply it recorded)
 * with `assistant.retry` (`attempt`: the retry's number, `delayMs` 0), then sends again; nothing
 * recorded before is recorded again. A cancel while asking ends it as cancelled.
 * @returns the reply, or the loop's next step when there is none.
 */
export async function requestAsking(
  settings: ModelFailureSettings,
  emit: (event: EventInput) => void,
  signal: AbortSignal,
  attempt: (emit: (event: EventInput) => void) => Promise<TurnResult>,
): Promise<RequestResult> {
  const ask = settings.onModelFailure;
  const result =
    ask === undefined ? await attempt(emit) : await retried(ask, emit, signal, attempt);
  switch (result.kind) {
    case "reply":
      return result;
    case "cancelled":
      return { kind: "stop", stopReason: "cancelled" };
    case "skipped":
      return { kind: "stop", stopReason: "end_turn" };
    case "failed":
      return { kind: "fail", failure: result.failure };
    default: {
      const unhandled: never = result;
      return unhandled;
    }
  }
}

async function retried(
  ask: ModelFailureCallback,
  emit: (event: EventInput) => void,
  signal: AbortSignal,
  attempt: (emit: (event: EventInput) => void) => Promise<TurnResult>,
): Promise<Attempted> {
  // The turn an attempt opened, for `assistant.retry` (none when it failed before sending).
  let turnId: string | undefined;
  const watched = (event: EventInput) => {
    if (event.type === "assistant.turn_start") {
      turnId = event.data.turnId;
    }
    emit(event);
  };
  let result = await attempt(watched);
  if (result.kind !== "failed") {
    return result;
  }
  const decision = await ask(result.failure, signal);
  if (signal.aborted) {
    return { kind: "cancelled" };
  }
  const retries = decision.handling === "retry" ? decision.retries : 0;
  for (let retry = 1; result.kind === "failed" && retry <= retries; retry++) {
    const { failure } = result;
    if (turnId !== undefined) {
      const errorType = failure.errorType === "cancelled" ? "internal" : failure.errorType;
      const { statusCode } = failure;
      const data = { turnId, attempt: retry, errorType, errorMessage: failure.message };
      emit({
        type: "assistant.retry",
        data: { ...data, ...(statusCode === undefined ? {} : { statusCode }), delayMs: 0 },
      });
    }
    turnId = undefined;
    result = await attempt(watched);
  }
  if (result.kind === "failed" && decision.handling === "skip") {
    const { message } = decision;
    emit({ type: "session.warning", data: { warningType: MODEL_CALL_SKIPPED, message } });
    return { kind: "skipped" };
  }
  return result;
}
