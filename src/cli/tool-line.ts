/**
 * What a `-p` tool line says about a finished call (the session model's `ToolCall`) and what every
 * face shows of a tool's output and the lines it leaves out ({@link outputLines}): here, as `-p`
 * loads it before its first request (test/cli/modules-loaded.test.ts bounds those).
 */

import { durationWords } from "../events/durations.js";
import { terminalText } from "../events/errors.js";
import type { JsonObject } from "../events/events.js";
import { outsideSandboxWords, type ToolCall } from "../session/session-model/session-model.js";
import { NOT_PERSISTED, outcomeSymbol, stateWords } from "../session/session-model/tool-call.js";
import { commandStop } from "../tools/bash.js";
import { PARTIAL_LINE_MARK } from "../tools/command-output.js";

/** Characters of a call's arguments a `-p` tool line shows. */
export const SHORT_ARGUMENTS_LENGTH = 60;

/** `key=value` pairs, each value cut short, the whole at most {@link SHORT_ARGUMENTS_LENGTH}. */
function shortArguments(parameters: JsonObject): string {
  const pairs = Object.entries(parameters)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  const text = terminalText(pairs).replace(/\s+/g, " ");
  return text.length > SHORT_ARGUMENTS_LENGTH
    ? `${text.slice(0, SHORT_ARGUMENTS_LENGTH - 1)}…`
    : text;
}

/**
 * What a tool line names a call by, on every terminal face: its command, path or pattern as
 * given (whitespace folded, so a compound or multi-line command reads as one line), else
 * {@link shortArguments}; cut to `maxLength` characters with `…`. Without terminal control
 * sequences: the model wrote it (events/errors.ts terminalText).
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

/** Text the model wrote, as one line of a terminal: without control sequences, whitespace folded. */
function oneLine(text: string): string {
  return terminalText(text).replace(/\s+/g, " ");
}

/** Lines of a failed command's output shown under its tool line without --verbose. */
export const FAILED_OUTPUT_LINES = 5;

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
 * {@link FAILED_OUTPUT_LINES} unless `verbose`, each painted by `paint` (an SGR code, the text),
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
  // The name is the model's too: an unknown tool's can hold anything.
  const call = `${oneLine(toolCall.toolName)} ${summary}`.trim();
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
    : { last: FAILED_OUTPUT_LINES };
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

/**
 * The marker a result too long to keep whole has where its middle was cut, on a line of its own
 * between its start and its end: `[… N lines (B bytes) omitted; WHERE]` (tools/command-output.ts
 * `omittedMarker`, written by the command runner and agent/result-budget.ts `cutResult`), `[… B
 * bytes omitted; WHERE]` in a log written before the lines were counted, `[… C characters
 * omitted; WHERE]` for an MCP tool's result (tools/mcp/tools.ts). Group 1: N, with its commas;
 * group 2: WHERE, where the whole output is (or why it is nowhere). (`\u2026` is `…`: the scripts
 * loaded before `-p`'s first request are ASCII, test/cli/modules-loaded.test.ts.)
 */
const OMITTED_MARKER =
  /^\[\u2026 (?:([\d,]+) lines? \()?\d+ (?:bytes|characters)\)? omitted; (.+)\]$/;

/** What a face shows of a tool's output, read by {@link outputLines}. */
export interface OutputLines {
  /** The output's first lines shown, whole, above the note ({@link hiddenLinesNote}). */
  first: string[];
  /** The output's last lines shown, whole, under the note. */
  last: string[];
  /**
   * Lines of the output (the command's, not the shortened text's) shown neither in `first` nor
   * in `last`, nor skipped as blank between them; `undefined` when the log does not say (a
   * marker without a line count).
   */
  hidden: number | undefined;
  /** Lines of the output in all; `undefined` when the log does not say. */
  total: number | undefined;
  /**
   * Where the whole output is when the log holds only its start and end: the marker's words
   * (`full output saved to PATH`, or why it was not saved); `undefined` when the log holds it all.
   */
  saved: string | undefined;
}

/**
 * The lines a face shows of a tool's output as logged (whole, or cut around an {@link OMITTED_MARKER}):
 * up to `keep.first` from its start, `keep.last` from its end (`nonBlank`: blank ones skipped). The
 * line before the marker (a cut line's piece, or the empty line after a whole head) is never shown;
 * the one after, unless it starts with tools/command-output.ts `PARTIAL_LINE_MARK` (N + 1 cut).
 */
export function outputLines(
  text: string,
  keep: { first?: number; last?: number },
  nonBlank = false,
): OutputLines {
  const trimmed = text.replace(/\s+$/, "");
  const lines = trimmed === "" ? [] : trimmed.split(/\r?\n/);
  const at = lines.findIndex((line) => OMITTED_MARKER.test(line.trim()));
  const marker = at === -1 ? undefined : OMITTED_MARKER.exec(lines[at]?.trim() ?? "");
  // The lines seen whole: all, or the head's and the tail's with `gap` lines between them.
  const head = marker === undefined ? lines : lines.slice(0, Math.max(0, at - 1));
  const after = marker === undefined ? [] : lines.slice(at + 1);
  const partial = after[0]?.startsWith(PARTIAL_LINE_MARK) === true ? 1 : 0;
  const tail = after.slice(partial);
  const counted = marker?.[1];
  const gap =
    marker === undefined
      ? 0
      : counted === undefined
        ? undefined
        : Number(counted.replaceAll(",", "")) + partial;
  const shown = (line: string) => !nonBlank || line.trim() !== "";
  const first: string[] = [];
  let firstEnd = 0;
  for (; firstEnd < head.length && first.length < (keep.first ?? 0); firstEnd++) {
    const line = head[firstEnd] ?? "";
    if (shown(line)) {
      first.push(line);
    }
  }
  // From the end: the tail, then (when nothing was cut) the head's lines after the first ones.
  const rest = [...head.slice(firstEnd), ...(gap === 0 ? [] : [undefined]), ...tail];
  const last: string[] = [];
  let lastStart = rest.length;
  for (; lastStart > 0 && last.length < (keep.last ?? 0); lastStart--) {
    const line = rest[lastStart - 1];
    if (line === undefined) {
      break;
    }
    if (shown(line)) {
      last.unshift(line);
    }
  }
  // `rest` holds the cut as one entry: it stands for `gap` lines.
  const unseen = gap === 0 ? lastStart : lastStart - 1;
  return {
    first,
    last,
    hidden: gap === undefined ? undefined : unseen + gap,
    total: gap === undefined ? undefined : head.length + gap + tail.length,
    saved: marker?.[2],
  };
}

/**
 * The rows a face draws where it leaves out lines of a tool's output ({@link outputLines}), none
 * when it leaves out none: `… 496 earlier lines (WHOLE)`, `WHOLE` being the face's words for
 * where the log's copy is shown all (`turnloop sessions export 1a2b3c4d --format markdown shows
 * all`: {@link exportShowsAll}); for a cut output, `… 4,996 earlier lines; full output saved to`
 * and the saved file's path on a row of its own, never cut mid-name (a terminal wraps a path
 * wider than itself), then what the marker says after it. `some` lines when the log does not
 * count them. `place`: `earlier` above the output's last lines, `more` for lines left out after
 * or between the lines shown.
 */
export function hiddenLinesNote(
  lines: OutputLines,
  place: "earlier" | "more",
  whole: string,
): string[] {
  const { hidden, saved } = lines;
  if (hidden === 0) {
    return [];
  }
  const count =
    hidden === undefined
      ? `some ${place} lines`
      : `${hidden.toLocaleString("en-US")} ${place} ${hidden === 1 ? "line" : "lines"}`;
  if (saved === undefined) {
    return [`… ${count} (${whole})`];
  }
  // `full output saved to PATH`, `the first B bytes of the output saved to PATH (…)`.
  const file = /^(.+? saved to) (.+?)( \(this session's saved outputs are capped[^)]*\))?$/.exec(
    saved,
  );
  if (file === null) {
    return [`… ${count}; ${saved}`];
  }
  const [, words = "", path = "", cap] = file;
  return [`… ${count}; ${words}`, path, ...(cap === undefined ? [] : [cap.trim()])];
}

/**
 * Where the whole of an output the log holds is shown: `turnloop sessions export 1a2b3c4d
 * --format markdown shows all`, the session named by its id's first 8 characters (a prefix the
 * `sessions` commands take); without an id, as `sessions show` names it for a prompt.
 */
export function exportShowsAll(sessionId: string | undefined): string {
  return sessionId === undefined
    ? "sessions export --format markdown shows all"
    : `turnloop sessions export ${sessionId.slice(0, 8)} --format markdown shows all`;
}
