/**
 * What a `-p` tool line says about a finished call, read from the session model's `ToolCall`
 * (src/session/session-model/): the outcome rule is the fold's.
 */

import { terminalText } from "../events/errors.js";
import type { JsonObject } from "../events/events.js";
import type { ToolCall } from "../session/session-model/session-model.js";
import { commandStop } from "../tools/bash.js";

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
  const text = terminalText(first).replace(/\s+/g, " ");
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
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
  /** Output lines to show under the tool line (a failed command's). */
  output: string[];
}

/**
 * A finished call as the user needs it: a command that failed (the session model's rule: it
 * exited non-zero or was killed) shows its exit code or signal and its output; one the runner
 * stopped says why (`timed out after 2 s`, `cancelled`: tools/bash.ts) and shows its output; any
 * other failure its first line. Output and reasons are drawn without terminal control sequences
 * (events/errors.ts terminalText). `edit` and `create` show their path and `+added −removed` lines (`(empty file)` for a
 * file created empty).
 */
export function toolOutcome(toolCall: ToolCall, callArguments: JsonObject): ToolOutcome {
  const output = terminalText(toolCall.output ?? "").replace(/\s+$/, "");
  const failed = toolCall.status !== "completed";
  if (toolCall.status === "interrupted") {
    // The session model's word for a call a cancel cut, on every face (the result's error code
    // says `cancelled` for one and `interrupted` for one a crash left open).
    const reason = firstLine(toolCall.output ?? toolCall.errorMessage ?? "");
    return { failed, detail: "interrupted", ...(reason === "" ? {} : { reason }), output: [] };
  }
  if (failed && toolCall.exitCode === undefined && toolCall.signal === undefined) {
    const text = terminalText(toolCall.output ?? toolCall.errorMessage ?? "");
    const stop = toolCall.toolName === "bash" ? commandStop(text) : undefined;
    if (stop !== undefined) {
      const printed = stop.output.replace(/\s+$/, "");
      return { failed, reason: stop.reason, output: printed === "" ? [] : printed.split("\n") };
    }
    // A refusal is shown whole: its end names the flag that allows the call (no-terminal-reason.ts).
    const whole = toolCall.status === "denied";
    return { failed, reason: whole ? (text.split("\n", 1)[0] ?? "") : firstLine(text), output: [] };
  }
  if (failed) {
    const detail =
      toolCall.signal === undefined
        ? failedCommand(toolCall.exitCode)
        : `killed by ${toolCall.signal}`;
    return { failed, detail, output: output === "" ? [] : output.split("\n") };
  }
  const path = typeof callArguments.path === "string" ? callArguments.path : undefined;
  const toolName = toolCall.toolName;
  if (toolName === "edit" && path !== undefined) {
    const { added, removed } = changedLines(
      String(callArguments.old_str ?? ""),
      String(callArguments.new_str ?? ""),
    );
    return { failed: false, label: path, detail: `+${added} −${removed}`, output: [] };
  }
  if (toolName === "create" && path !== undefined) {
    const text = String(callArguments.file_text ?? "");
    const detail = text === "" ? "(empty file)" : `+${lineCount(text)}`;
    return { failed: false, label: path, detail, output: [] };
  }
  return { failed: false, output: [] };
}

/**
 * A finished call as `-p` shows it on stderr: its line (`✓`/`✗`, the name, the label or short
 * arguments, the outcome's detail, the duration without the time the user took to answer a
 * permission question, why it failed), and under it a failed command's output lines, the last
 * {@link FAILED_OUTPUT_LINES} unless `verbose`, each painted by `paint` (an SGR code, the text).
 */
export function toolLines(
  toolCall: ToolCall,
  verbose: boolean,
  paint: (code: string, text: string) => string,
): { line: string; output: string[] } {
  // Arguments as the call started with them (a call refused before it started has none).
  const callArguments = toolCall.startedAt === undefined ? {} : toolCall.arguments;
  const outcome = toolOutcome(toolCall, callArguments);
  const summary = outcome.label ?? callSummary(callArguments, SHORT_ARGUMENTS_LENGTH);
  const call = `${toolCall.toolName} ${summary}`.trim();
  const duration = toolCall.durationMs === undefined ? "" : ` (${toolCall.durationMs} ms)`;
  const mark =
    toolCall.status === "interrupted"
      ? paint("33", "⊘")
      : outcome.failed
        ? paint("31", "✗")
        : paint("32", "✓");
  const detail = outcome.detail === undefined ? "" : ` ${outcome.detail}`;
  const reason = outcome.reason === undefined ? "" : `: ${outcome.reason}`;
  const shown = verbose ? outcome.output : outcome.output.slice(-FAILED_OUTPUT_LINES);
  const more = outcome.output.length - shown.length;
  return {
    line: `${mark} ${paint("2", `${call}${detail}${duration}${reason}`)}`,
    output: [
      ...(more > 0
        ? [paint("2", `    … ${more} more ${more === 1 ? "line" : "lines"} (--verbose shows all)`)]
        : []),
      ...shown.map((line) => paint("2", `    ${line}`)),
    ],
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

/**
 * How a failed command's exit reads: `failed (exit code N)`; a command that exited 0 yet failed
 * is one the sandbox stopped after the fact (it undid what the command changed of what later
 * runs read: tools/bash.ts), so `stopped by the sandbox`.
 */
export function failedCommand(exitCode: number | undefined): string {
  return exitCode === 0 ? "stopped by the sandbox" : `failed (exit code ${exitCode})`;
}

/** `✓`, `⊘ interrupted` (as the interactive terminal marks it), or `✗` with why ({@link unsuccessfulLabel}). */
export function outcomeMark(toolCall: ToolCall | undefined): string {
  if (toolCall === undefined || toolCall.status === "completed") {
    return "✓";
  }
  const mark = toolCall.status === "interrupted" ? "⊘" : "✗";
  return `${mark} ${unsuccessfulLabel(toolCall)}`;
}

/**
 * Why a call did not complete, in the words of every face (`sessions show`, the interactive
 * terminal, the session view): `interrupted` for a call a cancel or a crash cut (the session
 * model's state), a command's exit code or signal (the session model's rule), else the result's
 * error code (`denied` when the user said no, `rejected`, …), else `failed`.
 */
export function unsuccessfulLabel(toolCall: ToolCall): string {
  if (toolCall.status === "interrupted") {
    return "interrupted";
  }
  if (toolCall.exitCode !== undefined) {
    return failedCommand(toolCall.exitCode);
  }
  if (toolCall.signal !== undefined) {
    return `killed by ${toolCall.signal}`;
  }
  return toolCall.errorCode ?? "failed";
}
