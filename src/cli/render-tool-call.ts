/**
 * How one tool call reads in the plain-text transcript of `turnloop sessions show` (render.ts):
 * `→ name(key: value, …) ✓ (1.2 s)` (its time, as -p says it) with the first lines of its
 * result under it (a failed command's last lines; a completed edit's change, numbered in its
 * file), or `→ name(…) … no result` for a call its prompt ended without. A command run outside the sandbox with the user's yes says so
 * on its line, as on the live faces (trial 40 F8).
 */

import { durationWords } from "../events/durations.js";
import { terminalText } from "../events/errors.js";
import type { JsonObject, SessionEventOf } from "../events/events.js";
import { editChangeRows } from "../session/session-model/edit-change.js";
import { outsideSandboxWords, type ToolCall } from "../session/session-model/session-model.js";
import { exportShowsAll, hiddenLinesNote, outputLines } from "./output-lines.js";
import { drawnAsPlan } from "./plan-checklist.js";
import { abbreviate } from "./text-lines.js";
import { outcomeMark } from "./tool-line.js";

const ARGUMENTS_LENGTH = 60;
const RESULT_LINES = 3;
const RESULT_LINE_LENGTH = 120;

interface CallShown {
  name: string;
  arguments: JsonObject;
}

/**
 * The lines of a call's result: its line with the outcome mark, then up to three lines of its
 * output (the session model's: a command's without the `<exited …>` line the model reads) and a
 * note of the lines not shown. `toolCall`: the session model's call, if known; `requested`:
 * whether the transcript saw it asked for (else only the result's tool name is shown). None for
 * an `update_plan`, which shows as the plan's checklist (session.plan_updated).
 */
export function toolResultLines(
  toolCall: ToolCall | undefined,
  result: SessionEventOf<"tool.execution_complete">["data"],
  requested: boolean,
  sessionId: string | undefined,
): string[] {
  if (toolCall !== undefined && drawnAsPlan(toolCall)) {
    return [];
  }
  const call =
    requested && toolCall !== undefined
      ? shownCall(toolCall)
      : { name: result.toolName, arguments: {} };
  const outside = toolCall === undefined ? undefined : outsideSandboxWords(toolCall);
  // Its time as every face words it (-p's `(1.2 s)`, events/durations.ts).
  const took = toolCall?.durationMs === undefined ? "" : ` (${durationWords(toolCall.durationMs)})`;
  const line = `${describeCall(call)} ${outcomeMark(toolCall)}${took}${outside === undefined ? "" : ` · ${outside}`}`;
  if (toolCall?.toolName === "edit" && toolCall.status === "completed") {
    return [line, ...changeLines(toolCall)];
  }
  const text = toolCall?.output ?? result.result.content;
  const commandFailed = toolCall?.status === "failed" && toolCall.exitCode !== undefined;
  // A failed command's last lines say why; its exit code is on the call's line.
  // A line the cut began in shows its end, cut from its start (output-lines.ts `outputLines`).
  const width = RESULT_LINE_LENGTH;
  const lines = outputLines(
    text,
    commandFailed ? { last: RESULT_LINES, width } : { first: RESULT_LINES, width },
  );
  const note = hiddenLinesNote(
    lines,
    commandFailed ? "earlier" : "more",
    exportShowsAll(sessionId),
  );
  const row = (line: string) => `    ${line}`.trimEnd();
  return [
    line,
    ...lines.first.map((line) => row(abbreviate(line, RESULT_LINE_LENGTH))),
    // The saved file's path whole, however long.
    ...note.map(row),
    ...lines.last.map((line) => row(abbreviate(line, RESULT_LINE_LENGTH))),
  ];
}

/**
 * A completed edit's change under its line, as the screen shows it under the finished call
 * (session-model/edit-change.ts `editChangeRows`): `    12 - old` / `    12 + new`, numbered in
 * its file where the log has the file's change, each line cut to {@link RESULT_LINE_LENGTH}.
 */
function changeLines(toolCall: ToolCall): string[] {
  return editChangeRows(toolCall).map(({ marker, text, gutter }) => {
    const shown = abbreviate(terminalText(text), RESULT_LINE_LENGTH);
    return `    ${gutter}${marker ?? " "} ${shown}`.trimEnd();
  });
}

/** The line of a call its prompt ended without a result for. */
export function unansweredCallLine(toolCall: ToolCall): string {
  return `${describeCall(shownCall(toolCall))} … no result`;
}

function shownCall(toolCall: ToolCall): CallShown {
  return { name: toolCall.toolName, arguments: toolCall.arguments };
}

/** `name(key: value, …)` with JSON values, cut to {@link ARGUMENTS_LENGTH} characters. */
function describeCall(call: CallShown): string {
  const parts = Object.entries(call.arguments).map(
    ([key, value]) => `${key}: ${JSON.stringify(value)}`,
  );
  return `→ ${call.name}(${abbreviate(parts.join(", "), ARGUMENTS_LENGTH)})`;
}
