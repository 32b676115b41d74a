import type { PromptOutcome } from "../agent/loop.js";
import { terminalText, USER_CANCEL_REASON } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import type { Session } from "../session/session.js";
import { stillRunning } from "../tools/pipe-holders.js";
import type { PromptOptions } from "./arguments.js";
import { abortNote, failedForNow, failedPromptNote } from "./event-notes.js";
import type { PromptIo } from "./prompt-command.js";
import { PromptResultCollector, streamJsonLines } from "./prompt-result.js";
import { type RendererOptions, TerminalRenderer } from "./terminal-renderer.js";

/**
 * Where the events of a `-p` prompt go, by `--output-format`, `--quiet` and `--verbose`: text on
 * stdout and progress on stderr; json's one result object, or stream-json's event lines, on
 * stdout, and on stderr what `--quiet` leaves there (refused and failed calls, how a prompt that
 * did not answer ended), or with `--verbose` the text mode's stderr (README, "JSON output").
 */
export interface PromptOutput {
  unsubscribe: () => void;
  /**
   * Called once with the outcome: summary line, result object, or the quiet answer. `stopLine`:
   * how a prompt stopped early (`stopped: …`), said on stderr before the summary line.
   */
  finish(outcome: PromptOutcome, elapsedMs: number, stopLine?: string): void;
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
  const endingLines = (outcome: PromptOutcome, stopLine: string | undefined) =>
    writeEndingLines(io, outcome, session, collector, stopLine);
  const finish = (outcome: PromptOutcome, elapsedMs: number, stopLine?: string) => {
    const saved = session.unsavedLog() === undefined;
    const leftRunning = stillRunningNow(renderer);
    const result = collector.result(outcome, saved ? session.id : null, elapsedMs, leftRunning);
    const textEnding = () =>
      writeTextEnding({
        leftRunning,
        io,
        outcome,
        elapsedMs,
        session,
        collector,
        renderer,
        errorShown,
        stopLine,
      });
    lines?.end();
    if (format === "json" || format === "stream-json") {
      printJson(result);
      if (options.verbose) {
        textEnding();
      } else {
        endingLines(outcome, stopLine);
      }
    } else if (options.quiet) {
      if (!endingLines(outcome, stopLine) || collector.answeredDespite(outcome)) {
        writeQuietAnswer(io, collector.finalText);
      }
    } else {
      textEnding();
    }
  };
  return { unsubscribe, finish };
}

/**
 * The pids the prompt's commands named as left running (the renderer's fold) that still run now,
 * in the order the calls named them: what the text summary and the JSON result's
 * `left_running_pids` say. Read once at the prompt's end: the model may have stopped some since
 * (kill PID).
 */
function stillRunningNow(renderer: TerminalRenderer): number[] {
  return stillRunning(renderer.leftRunning().map((pid) => ({ pid }))).map(({ pid }) => pid);
}

/**
 * The ending line of a prompt that did not end well (`writeEndingLine`), then how it stopped early
 * (`stopLine`, on stderr before any summary). True when the prompt failed.
 */
function writeEndingLines(
  io: PromptIo,
  outcome: PromptOutcome,
  session: Session,
  collector: PromptResultCollector,
  stopLine: string | undefined,
): boolean {
  const failed = writeEndingLine(io, outcome, session, collector.cancelReason);
  if (stopLine !== undefined) {
    io.stderr.write(`turnloop: ${terminalText(stopLine)}\n`);
  }
  return failed;
}

/** `--quiet`'s answer: on a terminal without its control sequences; to a pipe or a file as sent. */
function writeQuietAnswer(io: PromptIo, finalText: string): void {
  const text = io.stdoutIsTerminal === true ? terminalText(finalText) : finalText;
  io.stdout.write(text === "" || text.endsWith("\n") ? text : `${text}\n`);
}

/** What the text mode's ending writes: its answer (text mode only), error, hint and summary. */
interface TextEnding {
  io: PromptIo;
  outcome: PromptOutcome;
  elapsedMs: number;
  session: Pick<Session, "id" | "unsavedLog">;
  collector: PromptResultCollector;
  renderer: TerminalRenderer;
  /** Whether the renderer already showed the prompt's error (its `session.error` was logged). */
  errorShown: boolean;
  /** How the prompt stopped early (`stopped: …`), written before the summary line. */
  stopLine: string | undefined;
  /** The processes left running that still run ({@link stillRunningNow}), by pid. */
  leftRunning: readonly number[];
}

/**
 * The text mode's ending: the answer on the renderer's stdout, then on stderr the error when
 * no event showed it, how to try a failed prompt again, how it stopped early, and the summary
 * line, last (README, "Using it").
 */
function writeTextEnding(ending: TextEnding): void {
  const { io, outcome, session, collector, renderer } = ending;
  if ("error" in outcome && !collector.answeredDespite(outcome)) {
    renderer.unanswered(); // Also when the log could not take the error's event.
  }
  renderer.flush();
  if ("error" in outcome && !ending.errorShown) {
    io.stderr.write(`turnloop: ${terminalText(outcome.error.message)}\n`);
  }
  const sessionId = session.unsavedLog() === undefined ? session.id : undefined;
  if (sessionId !== undefined && failedForNow(outcome)) {
    io.stderr.write(`turnloop: ${failedPromptNote({ kind: "prompt", sessionId })}\n`);
  }
  if (ending.stopLine !== undefined) {
    io.stderr.write(`turnloop: ${terminalText(ending.stopLine)}\n`);
  }
  const summary = renderer.summary({
    totals: collector.totals,
    elapsedMs: ending.elapsedMs,
    sessionId,
    refusedCalls: collector.denials.list.length,
    leftRunning: ending.leftRunning,
  });
  io.stderr.write(`${summary}\n`);
}

/** Where json's and stream-json's renderer would print an answer: nowhere (stdout is theirs). */
const NO_ANSWER_SINK = { write: () => true };

/**
 * Text: the answer on stdout, progress on stderr; --verbose: every reply on stdout; --quiet and
 * json (its one result object has no room for more): on stderr what the user must act on; json
 * and stream-json with --verbose: the text mode's stderr (tool lines, narration, summary), stdout
 * left to the JSON.
 */
function promptRenderer(
  options: PromptOptions,
  io: PromptIo,
  terminal: Pick<RendererOptions, "markdown" | "spinner">,
): TerminalRenderer {
  const color = io.interactive && io.env.NO_COLOR === undefined;
  const text = options.outputFormat === "text";
  return new TerminalRenderer(text ? io.stdout : NO_ANSWER_SINK, io.stderr, color, {
    ...terminal,
    verbose: options.verbose,
    allReplies: options.verbose && text,
    stdoutIsTerminal: text && io.stdoutIsTerminal === true,
    failuresOnly: options.quiet || (!text && !options.verbose),
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
    // A remote error's message, without its control sequences, as text mode's renderer shows it.
    io.stderr.write(`turnloop: ${terminalText(outcome.error.message)}\n`);
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
