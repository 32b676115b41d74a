import {
  type Component,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import { durationWords } from "../../events/durations.js";
import { terminalText } from "../../events/errors.js";
import { editChangeRows } from "../../session/session-model/edit-change.js";
import {
  isFinished,
  lastLines,
  type ToolCall,
  type ToolCallStatus,
} from "../../session/session-model/session-model.js";
import {
  NOT_PERSISTED,
  outsideSandboxWords,
  stateWords,
} from "../../session/session-model/tool-call.js";
import { commandStop } from "../../tools/bash.js";
import { viewSummary } from "../../tools/view.js";
import { exportShowsAll, hiddenLinesNote, outputLines } from "../output-lines.js";
import { lastLinesOf } from "../text-lines.js";
import { callSummary } from "../tool-line.js";
import type { Theme } from "./theme.js";

/**
 * Lines of a command's output shown under a finished call, and under a running one as they come
 * (the same count, so that the result takes the live lines' place without moving what is below).
 * An edit's diff is cut as every face cuts a finished edit's (session-model/edit-change.ts).
 */
const PREVIEW_LINES = 4;

/** Characters of a running command's output line kept at most: more than a terminal's row. */
const LIVE_LINE_LENGTH = 1_000;

/** Columns between a terminal's tab stops (a tab moves to the next multiple of it). */
const TAB_STOP = 8;

/**
 * One tool call on screen, drawn from the session model's {@link ToolCall} (the fold updates it
 * in place; src/session/session-model/): a line with its name and arguments as soon as it is
 * known, a live status (asking, running with the elapsed time, and under it the last lines of a
 * command's output so far), the rule an "always" answer made (under the line, above what the
 * tool did), then its outcome and a short preview: the change for edits, the last lines of
 * output for commands; a result the session log refused says so under the line. A command that exited
 * non-zero is failed, with its exit code, as on every face. Arguments, output and errors are
 * drawn without terminal control sequences (events/errors.ts terminalText).
 */
export class ToolCallView implements Component {
  /**
   * What the permission answer made, shown under the call's line, above its output: the rule an
   * "always" answer creates (event-notes.ts `alwaysRuleNote`).
   */
  answerNote: string | undefined;
  /**
   * The line over a finished command's last lines saying how many earlier ones it leaves out and
   * where all are, set while the call's rows are drawn.
   */
  private hiddenNote: string[] | undefined;
  /**
   * A completed command's note (the session model's `ToolCall.note`: writes the sandbox refused
   * although it exited 0), drawn whole under its last lines, set while the call's rows are drawn.
   */
  private resultNote: string[] | undefined;
  /** The columns an output row has for its text, set while the call's rows are drawn. */
  private outputWidth: number | undefined;
  /** The last {@link PREVIEW_LINES} lines of the running call's output so far. */
  private liveLines: readonly string[] = [];
  /**
   * The rows of the call once it is finished, at a width and with the answer note they were drawn
   * with: the fold changes a call no more once it ends, so a long transcript's calls are not drawn
   * again on every frame (bench/notes/screen27.md).
   */
  private drawn:
    | { width: number; status: ToolCallStatus; answerNote: string | undefined; rows: string[] }
    | undefined;

  /**
   * `sessionId`: the id of the session the call is in, when known (the transcript's fold), for the
   * command that shows a shortened output whole.
   */
  constructor(
    private readonly theme: Theme,
    private readonly toolCall: ToolCall,
    private readonly sessionId: () => string | undefined = () => undefined,
  ) {}

  get toolCallId(): string {
    return this.toolCall.toolCallId;
  }

  /** Whether the call is only asked for: not yet handled (no permission question, not started). */
  get pending(): boolean {
    return this.toolCall.status === "pending";
  }

  invalidate(): void {
    this.drawn = undefined;
  }

  /**
   * Keeps the last lines of the call's output so far (the session model's `partialOutput`, from
   * `tool.execution_partial_result`), shown under the call's line while it runs
   * ({@link liveLines}).
   */
  showOutput(): void {
    const { status, partialOutput } = this.toolCall;
    if (status === "running" && partialOutput !== undefined) {
      this.liveLines = liveLines(partialOutput);
    }
  }

  /** Forgets the live lines: the call ended, and its result shows instead. */
  endOutput(): void {
    this.liveLines = [];
  }

  render(width: number): string[] {
    const { drawn, answerNote } = this;
    const { status } = this.toolCall;
    if (
      drawn !== undefined &&
      drawn.width === width &&
      drawn.status === status &&
      drawn.answerNote === answerNote
    ) {
      return drawn.rows;
    }
    const rows = this.draw(width);
    this.drawn = isFinished(status) ? { width, status, answerNote, rows } : undefined;
    return rows;
  }

  /** The call's rows at `width`, drawn from the session model. */
  private draw(width: number): string[] {
    const { theme } = this;
    this.hiddenNote = undefined;
    this.resultNote = undefined;
    this.outputWidth = Math.max(1, width - 2);
    const [state, ...preview] = this.detail();
    const summary = this.summary();
    // A call without arguments to show (a `view` without a path) has no gap for them.
    const name = terminalText(this.toolCall.toolName);
    const head = `${this.mark()} ${theme.bold(name)}${summary === "" ? "" : ` ${summary}`}`;
    const room = width - visibleWidth(state ?? "") - 2;
    const line =
      state === undefined || room < 10
        ? truncateToWidth(head, width)
        : `${truncateToWidth(head, room)}  ${state}`;
    // Notes wrap (a path must be read whole: the hidden lines' note has it on a row of its own);
    // output lines are cut at the edge.
    const wrapped = (note: string | undefined, paint = theme.dim) =>
      note === undefined
        ? []
        : wrapTextWithAnsi(note, Math.max(1, width - 2)).map((row) => paint(`  ${row}`));
    // A result the log refused (the session model's `resultNotPersisted`): said first under the line.
    const notPersisted = this.toolCall.resultNotPersisted === true ? NOT_PERSISTED : undefined;
    return [
      truncateToWidth(line, width),
      ...wrapped(notPersisted, theme.warning),
      ...wrapped(this.answerNote),
      ...(this.hiddenNote ?? []).flatMap((note) => wrapped(note)),
      ...preview.map((text) => truncateToWidth(`  ${text}`, width)),
      ...(this.resultNote ?? []).flatMap((note) => wrapped(note, theme.warning)),
    ];
  }

  private mark(): string {
    const { theme } = this;
    switch (this.toolCall.status) {
      case "pending":
      case "awaiting_permission":
      case "running":
        return theme.accent("●");
      case "completed":
        return theme.success("✓");
      case "interrupted":
        return theme.warning("⊘");
      case "failed":
      case "denied":
        return theme.failure("✗");
    }
  }

  private summary(): string {
    return callSummary(this.toolCall.arguments);
  }

  /** The state shown after the call's line, then the preview lines under it. */
  private detail(): string[] {
    const { theme, toolCall } = this;
    switch (toolCall.status) {
      case "pending": {
        // What it waits on before it can run (an MCP server still starting), with the seconds.
        const { progress } = toolCall;
        return [
          theme.dim(
            progress === undefined
              ? "…"
              : `${progress.message} · ${durationWords(Date.now() - progress.since)}`,
          ),
        ];
      }
      case "awaiting_permission":
        return [theme.warning("waiting for your answer")];
      case "running": {
        const since = toolCall.runningAt ?? toolCall.startedAt ?? Date.now();
        const lines = this.liveLines.map((line) => theme.dim(line));
        return [theme.dim(`running ${durationWords(Date.now() - since)}`), ...lines];
      }
      case "completed":
        return this.completed();
      case "failed":
      case "denied":
      case "interrupted":
        return this.unsuccessful();
    }
  }

  /**
   * The state in the session model's words (session-model/tool-call.ts `stateWords`, as every
   * face says it), then the last lines of the output or the error (a command the runner stopped:
   * what it printed before).
   */
  private unsuccessful(): string[] {
    const { theme, toolCall } = this;
    const text = terminalText(toolCall.errorMessage ?? toolCall.output ?? "");
    const stopped =
      toolCall.status === "failed" &&
      toolCall.toolName === "bash" &&
      toolCall.exitCode === undefined &&
      toolCall.signal === undefined;
    const stop = stopped ? commandStop(text) : undefined;
    const state = `${theme.failure(stateWords(toolCall))}${this.outside()}`;
    return [state, ...this.lastOutputLines(stop?.output ?? text)];
  }

  /**
   * The last {@link PREVIEW_LINES} non-blank lines of `output` (output-lines.ts `outputLines`), dim;
   * when there are more, {@link hiddenNote} says how many earlier ones are left out and where all
   * are.
   */
  private lastOutputLines(output: string): string[] {
    const { theme } = this;
    // A line the cut began in: its end, cut from its start (output-lines.ts `outputLines`).
    const lines = outputLines(output, { last: PREVIEW_LINES, width: this.outputWidth }, true);
    const note = hiddenLinesNote(lines, "earlier", exportShowsAll(this.sessionId()));
    this.hiddenNote = note.length === 0 ? undefined : note;
    return lines.last.map((line) => theme.dim(expandTabs(line)));
  }

  private completed(): string[] {
    const { theme, toolCall } = this;
    const timing = `${theme.dim(durationWords(toolCall.durationMs ?? 0))}${this.outside()}`;
    if (toolCall.toolName === "edit") {
      return [timing, ...this.diff()];
    }
    if (toolCall.toolName === "create") {
      const text = String(toolCall.arguments.file_text ?? "");
      if (text === "") {
        return [`${timing} ${theme.dim("(empty file)")}`];
      }
      const lines = lineCount(text);
      return [`${timing} ${theme.added(`+${lines} line${lines === 1 ? "" : "s"}`)}`];
    }
    const output = terminalText(toolCall.output ?? "");
    if (toolCall.toolName === "bash") {
      // The note ends the output: drawn whole, apart, not cut at the edge as output lines are.
      const note = toolCall.note === undefined ? undefined : terminalText(toolCall.note);
      const at = note === undefined ? -1 : output.lastIndexOf(note);
      this.resultNote = at === -1 ? undefined : note?.split("\n");
      return [timing, ...this.lastOutputLines(at === -1 ? output : output.slice(0, at))];
    }
    return [`${timing} ${theme.dim(`· ${this.resultSummary(output)}`)}`];
  }

  /**
   * After the state of a command run outside the sandbox with the user's yes, that fact: on the
   * call's line, which keeps its state whole, not in the output under it, cut at the edge.
   */
  private outside(): string {
    const words = outsideSandboxWords(this.toolCall);
    return words === undefined ? "" : this.theme.warning(` · ${words}`);
  }

  /**
   * What a finished call other than a command's or a file change's says after its time: how many
   * lines its result has (the tool's, when the log holds only the start and end: output-lines.ts
   * `outputLines`); a `view` says which lines of how many it showed (tools/view.ts).
   */
  private resultSummary(output: string): string {
    const { toolCall } = this;
    if (toolCall.toolName === "view") {
      const lines = lastLines(output, Number.POSITIVE_INFINITY).join("\n");
      return viewSummary(lines, toolCall.arguments.view_range !== undefined);
    }
    const { total } = outputLines(output, {});
    return total === undefined
      ? "a cut result"
      : `${total.toLocaleString("en-US")} line${total === 1 ? "" : "s"}`;
  }

  /**
   * The edit's change as every face shows a finished edit's (session-model/edit-change.ts
   * `editChangeRows`: numbered in its file where the log has the file's change, trial 40 F13):
   * removed lines red, added green; context, the line numbers and the diff's notes (`[… 3 more
   * lines removed]`) dim.
   */
  private diff(): string[] {
    const { theme } = this;
    return editChangeRows(this.toolCall).map(({ marker, text: row, gutter }) => {
      const text = terminalText(row);
      const number = gutter === "" ? "" : theme.dim(gutter);
      return marker === "-"
        ? `${number}${theme.removed(`- ${text}`)}`
        : marker === "+"
          ? `${number}${theme.added(`+ ${text}`)}`
          : `${number}${theme.dim(`  ${text}`)}`;
    });
  }
}

/**
 * The last {@link PREVIEW_LINES} lines of a running command's output so far (all of it, or its
 * head and tail once past the command runner's limit), as drawn under its line: each cut to
 * {@link LIVE_LINE_LENGTH} characters (the screen holds and redraws a few short lines whatever the
 * command prints), without terminal control sequences and with hiding characters marked
 * (events/errors.ts terminalText), tabs laid out.
 */
function liveLines(output: string): string[] {
  return lastLinesOf(output, PREVIEW_LINES, LIVE_LINE_LENGTH).map((line) =>
    expandTabs(terminalText(line)),
  );
}

/**
 * A running `!command`'s output on screen: its last lines, drawn as a running call's are
 * ({@link liveLines}, dim, two columns in, cut at the terminal's edge).
 */
export class LiveOutputLines implements Component {
  private lines: readonly string[] = [];

  constructor(private readonly theme: Theme) {}

  /** `output`: the command's output so far. */
  show(output: string): void {
    this.lines = liveLines(output);
  }

  invalidate(): void {}

  render(width: number): string[] {
    return this.lines.map((line) => truncateToWidth(`  ${this.theme.dim(line)}`, width));
  }
}

/**
 * `line` with each tab replaced by the spaces up to the next tab stop counted from the line's
 * start, as the command's terminal would have laid it out: drawn indented, a raw tab would move
 * to other stops, and pi-tui counts it as three columns whatever it moves.
 */
function expandTabs(line: string): string {
  if (!line.includes("\t")) {
    return line;
  }
  let column = 0;
  return line
    .split("\t")
    .map((part, index) => {
      const pad = index === 0 ? "" : " ".repeat(TAB_STOP - (column % TAB_STOP));
      column += pad.length + visibleWidth(part);
      return pad + part;
    })
    .join("");
}

function lineCount(text: string): number {
  if (text === "") {
    return 0;
  }
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
