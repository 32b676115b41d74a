import type { EventInput, StopReason } from "../events/events.js";
import type { AssistantReply, ProviderFailure } from "../llm/provider.js";
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
   * nudges before the model called `task_complete`; `repeated` when the model repeated itself.
   */
  | { kind: "stop"; stopReason: StopReason; autopilotStopped?: "cap_reached"; repeated?: true }
  /** End the prompt with a failure (ACP answers it with an error). */
  | { kind: "fail"; failure: ProviderFailure };

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
 * `end_turn` with `autopilotStopped`; otherwise `end_turn`.
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
    return { kind: "stop", stopReason: "end_turn" };
  }
  if (counters.nudges < limits.maxAutopilotContinues) {
    return requestIfAllowed({ kind: "nudge" }, counters, limits);
  }
  return { kind: "stop", stopReason: "end_turn", autopilotStopped: "cap_reached" };
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
 * follower ends it (issue 22). The repetition guard's notice, autopilot's cap. A cancel and a
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
  return { stopReason: step.stopReason };
}
