import type { PromptOutcome } from "../agent/loop.js";
import { terminalText, USER_CANCEL_REASON } from "../events/errors.js";
import type { SessionEvent, StopReason } from "../events/events.js";
import type { Session } from "../session/session.js";
import { UsageTotals } from "../session/usage-totals.js";
import type { PromptOptions } from "./arguments.js";
import { abortNote, failedForNow, failedPromptNote } from "./event-notes.js";
import type { PromptIo } from "./prompt-command.js";
import { type RendererOptions, TerminalRenderer } from "./terminal-renderer.js";

/**
 * The one object `--output-format json` prints, and the last line of `stream-json`: the shape
 * scripts written for `claude -p --output-format json` read (`type: "result"`, `subtype`,
 * `is_error`, `result`, `session_id`, `num_turns`, `duration_ms`, `usage` with Anthropic-style
 * token names, `total_cost_usd`), plus `stop_reason` (ACP's), on error `error`, and on a cancel
 * `cancel_reason`.
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
  private lastText = "";
  /** Whether the last reply was a whole answer: no tool requests, not cut short. */
  private answered = false;
  private abortReason: string | undefined;

  readonly handle = (event: SessionEvent): void => {
    this.totals.apply(event);
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

  /** The result object; `sessionId` `null` when the session was not saved. */
  result(outcome: PromptOutcome, sessionId: string | null, durationMs: number): PromptResult {
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

/** The result's `usage`, in Anthropic's names: a count no request reported is left out. */
function resultUsage(totals: UsageTotals): PromptResult["usage"] {
  const usage: PromptResult["usage"] = {};
  const counts = [
    ["input_tokens", totals.inputTokens],
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

/**
 * Where the events of a `-p` prompt go, by `--output-format` and `--quiet`: text on stdout and
 * progress on stderr; json's one result object, or stream-json's event lines, on stdout, and on
 * stderr what `--quiet` leaves there (refused and failed calls, how a prompt that did not answer
 * ended).
 */
export interface PromptOutput {
  unsubscribe: () => void;
  /** Called once with the outcome: summary line, result object, or the quiet answer. */
  finish(outcome: PromptOutcome, elapsedMs: number): void;
}

export function promptOutput(
  options: PromptOptions,
  io: PromptIo,
  session: Session,
  terminal: Pick<RendererOptions, "markdown" | "spinner">,
): PromptOutput {
  const collector = new PromptResultCollector();
  const renderer = promptRenderer(options, io, terminal);
  const printJson = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  const format = options.outputFormat;
  const lines = format === "stream-json" ? streamJsonLines(session, printJson) : undefined;
  // stream-json's stderr says what --quiet's and json's say (README, "JSON output").
  const show = (event: SessionEvent) => {
    lines?.show(event);
    renderer.handle(event);
  };
  let errorShown = false; // One the log could not take (its last write failed) is no event.
  const unsubscribe = session.subscribe((event) => {
    errorShown ||= event.type === "session.error";
    collector.handle(event);
    show(event);
  });
  const endingLine = (outcome: PromptOutcome) =>
    writeEndingLine(io, outcome, session, collector.cancelReason);
  const finish = (outcome: PromptOutcome, elapsedMs: number) => {
    const saved = session.unsavedLog() === undefined;
    const result = collector.result(outcome, saved ? session.id : null, elapsedMs);
    lines?.end();
    if (format === "json" || format === "stream-json") {
      printJson(result);
      endingLine(outcome);
    } else if (options.quiet) {
      if (endingLine(outcome) && !collector.answeredDespite(outcome)) {
        return;
      }
      // On a terminal without its control sequences; to a pipe or a file as the model sent it.
      const text =
        io.stdoutIsTerminal === true ? terminalText(collector.finalText) : collector.finalText;
      io.stdout.write(text === "" || text.endsWith("\n") ? text : `${text}\n`);
    } else {
      if ("error" in outcome && !collector.answeredDespite(outcome)) {
        renderer.unanswered(); // Also when the log could not take the error's event.
      }
      renderer.flush();
      if ("error" in outcome && !errorShown) {
        io.stderr.write(`turnloop: ${outcome.error.message}\n`);
      }
      const sessionId = saved ? session.id : undefined;
      if (sessionId !== undefined && failedForNow(outcome)) {
        io.stderr.write(`turnloop: ${failedPromptNote({ kind: "prompt", sessionId })}\n`);
      }
      io.stderr.write(`${renderer.summary(collector.totals, elapsedMs, sessionId)}\n`);
    }
  };
  return { unsubscribe, finish };
}

/** Text: the answer on stdout, progress on stderr; --verbose: every reply on stdout; --quiet and
 * json (its one result object has no room for more): on stderr what the user must act on. */
function promptRenderer(
  options: PromptOptions,
  io: PromptIo,
  terminal: Pick<RendererOptions, "markdown" | "spinner">,
): TerminalRenderer {
  const color = io.interactive && io.env.NO_COLOR === undefined;
  return new TerminalRenderer(io.stdout, io.stderr, color, {
    ...terminal,
    verbose: options.verbose,
    allReplies: options.verbose,
    stdoutIsTerminal: io.stdoutIsTerminal === true,
    failuresOnly: options.quiet || options.outputFormat !== "text",
  });
}

/** --quiet, json and stream-json: how the prompt ended, when it did not answer, on stderr (a
 * failed prompt kept in the saved session: how to try it again).
 * @returns true when it failed. */
function writeEndingLine(
  io: PromptIo,
  outcome: PromptOutcome,
  session: Pick<Session, "id" | "unsavedLog">,
  cancelReason: string | undefined,
): boolean {
  const sessionId = session.id;
  if ("error" in outcome) {
    io.stderr.write(`turnloop: ${outcome.error.message}\n`);
    if (session.unsavedLog() === undefined && failedForNow(outcome)) {
      io.stderr.write(`turnloop: ${failedPromptNote({ kind: "prompt", sessionId })}\n`);
    }
    return true;
  }
  if (outcome.stopReason === "cancelled") {
    // The session id is what the user needs to go on (the summary line names it otherwise).
    const cancelled = abortNote(cancelReason ?? USER_CANCEL_REASON);
    io.stderr.write(`turnloop: ${cancelled}; resume with --resume ${sessionId}\n`);
  }
  return false;
}
