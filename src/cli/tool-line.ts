/**
 * What a `-p` tool line says about a finished call (the session model's `ToolCall`), its output
 * read as every face reads it (output-lines.ts): here, as `-p` loads it before its first request
 * (test/cli/modules-loaded.test.ts bounds those).
 */

import { durationWords } from "../events/durations.js";
import { argumentText, terminalText } from "../events/errors.js";
import type { JsonObject } from "../events/events.js";
import { outsideSandboxWords, type ToolCall } from "../session/session-model/session-model.js";
import { NOT_PERSISTED, outcomeSymbol, stateWords } from "../session/session-model/tool-call.js";
import { commandStop } from "../tools/bash.js";
import { hiddenLinesNote, outputLines } from "./output-lines.js";

/** Characters of a call's arguments a `-p` tool line shows. */
export const SHORT_ARGUMENTS_LENGTH = 60;

/** `key=value` pairs, each value cut short, the whole at most {@link SHORT_ARGUMENTS_LENGTH}. */
function shortArguments(parameters: JsonObject): string {
  const pairs = Object.entries(parameters)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  const text = argumentText(pairs).replace(/\s+/g, " ");
  return text.length > SHORT_ARGUMENTS_LENGTH
    ? `${text.slice(0, SHORT_ARGUMENTS_LENGTH - 1)}…`
    : text;
}

/**
 * What a tool line names a call by, on every terminal face: its command, path or pattern as
 * given (whitespace folded, so a compound or multi-line command reads as one line), else
 * {@link shortArguments}; cut to `maxLength` characters with `…`. Its control characters drawn as
 * code points: the model wrote it, and a `\r` must not hide what runs (events/errors.ts
 * argumentText).
 */
export function callSummary(parameters: JsonObject, maxLength = Number.POSITIVE_INFINITY): string {
  const first = ["command", "path", "pattern"]
    .map((key) => parameters[key])
    .find((value): value is string => typeof value === "string");
  if (first === undefined) {
    return shortArguments(parameters);
  }
  const text = oneLine(first);
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/** An argument the model wrote, as one line of a terminal: control characters visible, whitespace folded. */
function oneLine(text: string): string {
  return argumentText(text).replace(/\s+/g, " ");
}

/** Lines of a failed command's output shown under its tool line without --verbose. */
export const FAILED_OUTPUT_LINES = 5;

/**
 * Characters shown without --verbose of a line the cut began in (one long line's end: its kept
 * part may be 18,000 characters), as `sessions show` cuts its lines: `…` and its last 119.
 */
const LINE_END_LENGTH = 120;

/** What a tool line says besides the name: a label instead of the arguments, the outcome, output lines. */
export interface ToolOutcome {
  failed: boolean;
  label?: string;
  detail?: string;
  /** Why the call failed, after the duration. */
  reason?: string;
  /** Output to show under the tool line (a failed command's), without terminal control sequences. */
  output: string;
  /**
   * A completed command's note (the session model's `ToolCall.note`: writes the sandbox refused
   * although it exited 0, its private `/tmp`), shown under the `✓` line; a failed command's is
   * the end of its output.
   */
  note?: string;
}

/**
 * A finished call as the user needs it: a call that did not complete says so in the session
 * model's words (session-model/tool-call.ts `stateWords`: `failed (exit code 1)`, `timed out
 * after 2 s`, `denied`, `interrupted`, `invalid arguments`, `unknown tool` …); a command shows
 * its output (one the runner stopped, what it printed before), any other failure its first line
 * as the reason. Output and reasons are drawn without terminal control sequences
 * (events/errors.ts terminalText). `edit` and `create` show their path and `+added −removed`
 * lines (`(empty file)` for a file created empty).
 */
export function toolOutcome(toolCall: ToolCall, callArguments: JsonObject): ToolOutcome {
  if (toolCall.status !== "completed") {
    return unsuccessfulOutcome(toolCall);
  }
  const path = typeof callArguments.path === "string" ? callArguments.path : undefined;
  const toolName = toolCall.toolName;
  if (toolName === "edit" && path !== undefined) {
    const { added, removed } = changedLines(
      String(callArguments.old_str ?? ""),
      String(callArguments.new_str ?? ""),
    );
    return { failed: false, label: oneLine(path), detail: `+${added} −${removed}`, output: "" };
  }
  if (toolName === "create" && path !== undefined) {
    const text = String(callArguments.file_text ?? "");
    const detail = text === "" ? "(empty file)" : `+${lineCount(text)}`;
    return { failed: false, label: oneLine(path), detail, output: "" };
  }
  const note = toolCall.note === undefined ? undefined : terminalText(toolCall.note);
  return { failed: false, output: "", ...(note === undefined ? {} : { note }) };
}

/** The line the loop adds to a result the prompt's cancel cut: what cancelled it (agent/tool-calls.ts). */
const ABORT_LINE = /\n\[(cancelled by [^\]\n]+)\]$/;

/**
 * A command a cancel stopped, read from its result (tools/bash.ts `commandStop`, then the loop's
 * {@link ABORT_LINE}): why, `cancelled by SIGTERM; its process group was killed`, and what it
 * printed before, apart (its first line is no reason). `undefined` for any other text.
 */
function cancelledCommand(text: string): { reason: string; output: string } | undefined {
  const aborted = ABORT_LINE.exec(text);
  const body = aborted === null ? text : text.slice(0, aborted.index);
  const stop = commandStop(body);
  if (stop === undefined) {
    return undefined;
  }
  const how = /; (.*?)\.?$/.exec(body.slice(stop.output.length).trim())?.[1];
  const why = aborted?.[1] ?? stop.reason;
  return { reason: how === undefined ? why : `${why}; ${how}`, output: stop.output };
}

/**
 * A finished call as `-p` shows it on stderr: its line (`✓`/`✗`, the name, the label or short
 * arguments, the outcome's detail, the duration without the time the user took to answer a
 * permission question, why it failed), and under it a failed command's output lines, the last
 * {@link FAILED_OUTPUT_LINES} unless `verbose` (a line the cut began in, its end: {@link
 * LINE_END_LENGTH}), each painted by `paint` (an SGR code, the text),
 * and apart, `note`, a completed command's note ({@link ToolOutcome.note}). A result that reached
 * the face but not the log (the session model's `resultNotPersisted`) is said on the line, yellow,
 * after its reason ({@link NOT_PERSISTED}).
 */
export function toolLines(
  toolCall: ToolCall,
  verbose: boolean | undefined,
  paint: (code: string, text: string) => string,
): { line: string; output: string[]; note: string[] } {
  // Arguments as the call started with them (a call refused before it started has none).
  const callArguments = toolCall.startedAt === undefined ? {} : toolCall.arguments;
  const outcome = toolOutcome(toolCall, callArguments);
  const summary = outcome.label ?? callSummary(callArguments, SHORT_ARGUMENTS_LENGTH);
  // The name is the model's too: an unknown tool's can hold anything (drawn as every face draws it).
  const name = terminalText(toolCall.toolName).replace(/\s+/g, " ");
  const call = `${name} ${summary}`.trim();
  const took = toolCall.durationMs;
  const duration = took === undefined ? "" : ` (${durationWords(took)})`;
  const symbol = outcomeSymbol(toolCall.status);
  const mark = paint(symbol === "✓" ? "32" : symbol === "⊘" ? "33" : "31", symbol);
  const details = [outcome.detail, outsideSandboxWords(toolCall)].filter(Boolean).join(" · ");
  const detail = details === "" ? "" : ` ${details}`;
  const reason = outcome.reason === undefined ? "" : `: ${outcome.reason}`;
  // --verbose: every line the log holds, the note where the result was cut.
  const keep = verbose
    ? { first: Number.POSITIVE_INFINITY, last: Number.POSITIVE_INFINITY }
    : { last: FAILED_OUTPUT_LINES, width: LINE_END_LENGTH };
  const lines = outputLines(outcome.output, keep);
  const dim = (row: string) => paint("2", `    ${row}`);
  const notes = outcome.note === undefined ? [] : outcome.note.split("\n");
  return {
    line: `${mark} ${paint("2", `${call}${detail}${duration}${reason}`)}${toolCall.resultNotPersisted === true ? paint("33", ` — ${NOT_PERSISTED}`) : ""}`,
    output: [
      ...lines.first.map(dim),
      ...hiddenLinesNote(lines, "more", "--verbose shows all").map(dim),
      ...lines.last.map(dim),
    ],
    // What the command's exit does not show (a refused write): yellow, as a warning.
    note: notes.map((row) => paint("33", `    ${row}`)),
  };
}

/** Lines added and removed by replacing `before` with `after`, common first and last lines aside. */
export function changedLines(before: string, after: string): { added: number; removed: number } {
  const old = before === "" ? [] : before.split("\n");
  const next = after === "" ? [] : after.split("\n");
  let start = 0;
  while (start < old.length && start < next.length && old[start] === next[start]) {
    start++;
  }
  let end = 0;
  while (
    end < old.length - start &&
    end < next.length - start &&
    old[old.length - 1 - end] === next[next.length - 1 - end]
  ) {
    end++;
  }
  return { added: next.length - start - end, removed: old.length - start - end };
}

function lineCount(text: string): number {
  if (text === "") {
    return 0;
  }
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The first line, at most 160 characters, cut at a word boundary (a hint is never cut mid-word). */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  if (line.length <= 160) {
    return line;
  }
  const cut = line.slice(0, 159);
  const space = cut.lastIndexOf(" ");
  return `${(space > 80 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `✓`, or the mark (`⊘` interrupted, else `✗`) with the session model's words ({@link stateWords}). */
export function outcomeMark(toolCall: ToolCall | undefined): string {
  if (toolCall === undefined || toolCall.status === "completed") {
    return "✓";
  }
  return `${outcomeSymbol(toolCall.status)} ${stateWords(toolCall)}`;
}

/**
 * A call that did not complete: its state in the session model's words as the detail; a
 * command's output, or the first line of why it failed as the reason (a refusal's whole first
 * line: its end names the flag that allows the call, no-terminal-reason.ts); an interrupted
 * command's reason is what cut it (`cancelled by SIGTERM; its process group was killed`), its
 * output apart; another interrupted call's, its result's first line.
 */
function unsuccessfulOutcome(toolCall: ToolCall): ToolOutcome {
  const detail = stateWords(toolCall);
  const text = terminalText(toolCall.output ?? toolCall.errorMessage ?? "");
  if (toolCall.status === "interrupted") {
    // A command a cancel cut says what cut it, its output apart (its first line is no reason).
    const stop = toolCall.toolName === "bash" ? cancelledCommand(text) : undefined;
    if (stop !== undefined) {
      return { failed: true, detail, reason: stop.reason, output: stop.output };
    }
    const reason = firstLine(text);
    return { failed: true, detail, ...(reason === "" ? {} : { reason }), output: "" };
  }
  if (toolCall.exitCode !== undefined || toolCall.signal !== undefined) {
    return { failed: true, detail, output: terminalText(toolCall.output ?? "") };
  }
  const stop = toolCall.toolName === "bash" ? commandStop(text) : undefined;
  if (stop !== undefined) {
    return { failed: true, detail, output: stop.output };
  }
  const whole = toolCall.status === "denied";
  const reason = whole ? (text.split("\n", 1)[0] ?? "") : firstLine(text);
  return { failed: true, detail, ...(reason === "" ? {} : { reason }), output: rest(text, whole) };
}

/**
 * What a failure's text has past the reason on its call's line ({@link firstLine}), shown under
 * that line as output (its last lines; `--verbose` all), so a long or multi-line message is not
 * lost at the line's end (trial 38 F3): the first line's end after `…`, then the other lines.
 * Nothing for a refusal (`whole`: its first line is shown whole).
 */
function rest(text: string, whole: boolean): string {
  if (whole) {
    return "";
  }
  const [first = "", ...others] = text.split("\n");
  const shown = firstLine(first);
  const cut = shown.endsWith("…") ? shown.length - 1 : first.length;
  const end = first.slice(cut).trimStart();
  return [...(end === "" ? [] : [`…${end}`]), ...others].join("\n");
}
