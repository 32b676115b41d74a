import type { PromptOutcome } from "../agent/loop.js";
import type { SessionEvent, StopReason } from "../events/events.js";
import type { Session } from "../session/session.js";
import { UsageTotals } from "../session/usage-totals.js";
import { type PermissionDenial, PermissionDenials } from "./permission-denials.js";

/**
 * The one object `--output-format json` prints, and the last line of `stream-json`: the shape
 * scripts written for `claude -p --output-format json` read (`type: "result"`, `subtype`,
 * `is_error`, `result`, `session_id`, `num_turns`, `duration_ms`, `usage` with Anthropic-style
 * token names, `total_cost_usd`, `permission_denials`), plus `stop_reason` (ACP's), on error
 * `error`, and on a cancel `cancel_reason`.
 */
export interface PromptResult {
  type: "result";
  subtype: ResultSubtype;
  /** `false` only for a finished prompt (`subtype` `success`); every other end exits non-zero. */
  is_error: boolean;
  /**
   * The final answer: the text of the last model reply of the prompt (for one that ended with
   * autopilot's `task_complete` and no text, its summary); empty when the prompt was
   * cancelled or failed (a reply cut short is no answer; it stays in the session's log), except
   * a failure to store the session after the model's answer came: that answer (it is nowhere else).
   */
  result: string;
  /** ACP stop reason; `null` when the prompt failed with an error. */
  stop_reason: StopReason | null;
  /**
   * The session to `--resume`; `null` when none was saved (storage refused the prompt's first
   * write: a full disk, a database down), so a script never resumes an id that names nothing.
   */
  session_id: string | null;
  /**
   * Turns of the prompt: the model requests it kept (failed, cancelled and compaction ones
   * included; a failed attempt sent again is a retry, not a turn), the count of the summary line
   * and `/usage` (usage-totals.ts).
   */
  num_turns: number;
  /** Wall time of the prompt, ms. */
  duration_ms: number;
  /** Tokens summed over the prompt's requests; a count no provider reported is absent. */
  usage: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  /** USD, present when every request that reported usage had a cost. */
  total_cost_usd?: number;
  /**
   * The prompt's refused tool calls, in order (Claude Code's field and entry shape): empty when
   * none was. A refused call does not change `subtype` or the exit code (the model heard why and
   * went on), so a job that must not pass with refused calls tests this list.
   */
  permission_denials: PermissionDenial[];
  /**
   * The pids of the processes the prompt's commands left running (outside the sandbox: `nohup …
   * &`, `setsid`) that still run as the result is made, in the order the calls named them; empty
   * when none does. What the text mode's summary line names (`1 process left running (pid 4242)`).
   */
  left_running_pids: number[];
  error?: { type: string; message: string };
  /**
   * Who stopped a cancelled prompt, in the log's words (its `abort` event's reason): `cancelled
   * by SIGTERM` (SIGINT, SIGHUP), `cancelled by a closed output (EPIPE)`; present only when
   * `stop_reason` is `cancelled`.
   */
  cancel_reason?: string;
}

/**
 * Collects what a {@link PromptResult} needs from a prompt's events; its {@link totals} also give
 * the text summary line (prompt-totals.ts), so that both count by one rule (usage-totals.ts).
 */
export class PromptResultCollector {
  /** The prompt's requests, tokens and cost. */
  readonly totals = new UsageTotals();
  /** The prompt's refused calls: the result's `permission_denials`, the summary line's count. */
  readonly denials = new PermissionDenials();
  private lastText = "";
  /** Whether the last reply was a whole answer: no tool requests, not cut short. */
  private answered = false;
  private abortReason: string | undefined;

  readonly handle = (event: SessionEvent): void => {
    this.totals.apply(event);
    this.denials.handle(event);
    switch (event.type) {
      case "assistant.message":
        this.lastText = event.data.content;
        this.answered = event.data.toolRequests.length === 0 && event.data.interrupted !== true;
        return;
      case "session.task_complete":
        // The reply that called task_complete may have no text: its summary is the answer then.
        if (this.lastText.trim() === "") {
          this.lastText = event.data.summary;
        }
        return;
      case "abort":
        // A cancelled prompt has no answer: its cut reply is in the log, not the result.
        this.lastText = "";
        this.abortReason = event.data.reason;
        return;
      default:
        return;
    }
  };

  /** The final answer so far: the last reply's text; empty once the prompt is cancelled. */
  get finalText(): string {
    return this.lastText;
  }

  /**
   * Whether `outcome` failed only to store the session after the model's whole answer came (a
   * full disk, a database gone): the answer is still the prompt's (README, "Where sessions are kept").
   */
  answeredDespite(outcome: PromptOutcome): boolean {
    return "error" in outcome && outcome.error.errorType === "storage" && this.answered;
  }

  /** The `abort` event's reason (`cancelled by SIGTERM` …); undefined while none came. */
  get cancelReason(): string | undefined {
    return this.abortReason;
  }

  /**
   * The result object; `sessionId` `null` when the session was not saved; `leftRunning`: the
   * pids of the processes the prompt's commands left running that still run.
   */
  result(
    outcome: PromptOutcome,
    sessionId: string | null,
    durationMs: number,
    leftRunning: readonly number[] = [],
  ): PromptResult {
    const failed = "error" in outcome;
    const stopReason = failed ? null : outcome.stopReason;
    const subtype = resultSubtype(outcome);
    const { totals } = this;
    return {
      type: "result",
      subtype,
      is_error: subtype !== "success",
      result: failed && !this.answeredDespite(outcome) ? "" : this.lastText,
      stop_reason: stopReason,
      session_id: sessionId,
      num_turns: totals.turns,
      duration_ms: Math.round(durationMs),
      usage: resultUsage(totals),
      ...(totals.costComplete ? { total_cost_usd: totals.cost } : {}),
      permission_denials: this.denials.list,
      left_running_pids: [...leftRunning],
      ...(failed
        ? { error: { type: outcome.error.errorType, message: outcome.error.message } }
        : {}),
      ...(stopReason === "cancelled" && this.abortReason !== undefined
        ? { cancel_reason: this.abortReason }
        : {}),
    };
  }
}

/**
 * How a prompt ended, one word each, in the manner of Claude Code's `-p` result subtypes (its
 * `success`, `error_max_turns` and `error_during_execution` mean the same here; the others are
 * turnloop's own stops): README, "JSON output".
 */
export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_repetition"
  | "error_max_autopilot_continues"
  | "error_empty_answer"
  | "error_max_tokens"
  | "error_refusal"
  | "error_cancelled"
  | "error_prompt_too_large"
  | "error_during_execution";

/**
 * The result's `subtype` for how the prompt ended: `success` only when the model finished
 * (`end_turn`) with text (else `error_empty_answer`) and, under autopilot, did not stop at
 * `--max-autopilot-continues` (`error_max_autopilot_continues`); `error_max_turns` only when `--max-turns` stopped it, the
 * repetition guard's stop (also `max_turn_requests`) being `error_repetition`; `error_max_tokens`,
 * `error_refusal`, `error_cancelled` for those stop reasons; `error_prompt_too_large` for a prompt
 * refused before it was sent (beyond the model's window); `error_during_execution` for an error.
 */
export function resultSubtype(outcome: PromptOutcome): ResultSubtype {
  if ("error" in outcome) {
    return outcome.promptTooLarge === undefined
      ? "error_during_execution"
      : "error_prompt_too_large";
  }
  switch (outcome.stopReason) {
    case "end_turn":
      if (outcome.emptyAnswer === true) {
        return "error_empty_answer";
      }
      return outcome.autopilotStopped === undefined ? "success" : "error_max_autopilot_continues";
    case "max_turn_requests":
      return outcome.repetition === undefined ? "error_max_turns" : "error_repetition";
    case "max_tokens":
      return "error_max_tokens";
    case "refusal":
      return "error_refusal";
    case "cancelled":
      return "error_cancelled";
    default: {
      const unknown: never = outcome.stopReason;
      return unknown;
    }
  }
}

/**
 * The result's `usage`, in Anthropic's names and meanings (Claude Code's result has them so):
 * `input_tokens` is the input not read from nor written to the cache, which
 * `cache_read_input_tokens` and `cache_creation_input_tokens` count; the three add up to the
 * whole input, which the log's `assistant.usage` `inputTokens` is on every wire (trial 42 F3). A
 * count no request reported is left out.
 */
function resultUsage(totals: UsageTotals): PromptResult["usage"] {
  const usage: PromptResult["usage"] = {};
  const cached = (totals.cacheReadTokens ?? 0) + (totals.cacheWriteTokens ?? 0);
  const uncached =
    totals.inputTokens === undefined ? undefined : Math.max(0, totals.inputTokens - cached);
  const counts = [
    ["input_tokens", uncached],
    ["output_tokens", totals.outputTokens],
    ["cache_read_input_tokens", totals.cacheReadTokens],
    ["cache_creation_input_tokens", totals.cacheWriteTokens],
  ] as const;
  for (const [key, count] of counts) {
    if (count !== undefined) {
      usage[key] = count;
    }
  }
  return usage;
}

/** `--output-format stream-json`'s event lines, as {@link streamJsonLines} prints them. */
export interface StreamJsonLines {
  /** Prints `event`'s line, or holds it while the session is not in the store. */
  show(event: SessionEvent): void;
  /**
   * At the prompt's end, before the result line: prints the lines held back when the session is
   * stored, and drops them when it is not (the result says `session_id: null` and the error).
   */
  end(): void;
}

/**
 * Prints each of `session`'s events as a JSON line through `print`, its opening events
 * (`session.start`) first, but only once the session is in the store: a new `-p` session is
 * saved at its prompt's first write (session/deferred-appender.ts), and until that write has gone
 * through, the lines wait. So every session id the stream announces names a stored session; when
 * the first write fails (a full disk, a database down), no event line is printed, and the result
 * line, the only one, says `session_id: null` and the error, as `--output-format json` does.
 * A resumed session is in the store from the start: its lines go out as they happen.
 */
export function streamJsonLines(
  session: Session,
  print: (value: unknown) => void,
): StreamJsonLines {
  let held: SessionEvent[] | undefined = [...session.openingEvents];
  const release = () => {
    if (held !== undefined && session.unsavedLog() === undefined) {
      held.forEach(print);
      held = undefined;
    }
  };
  release();
  return {
    show(event) {
      if (held === undefined) {
        print(event);
        return;
      }
      held.push(event);
      release();
    },
    end() {
      release();
      held = undefined;
    },
  };
}
