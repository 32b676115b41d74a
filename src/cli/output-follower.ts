/**
 * A running command's output printed as it comes, for a face that cannot redraw (the plain
 * interactive face): each report of the output so far gives the whole lines not printed yet.
 */

import { terminalText } from "../events/errors.js";
import type { ToolCall } from "../session/session-model/session-model.js";
import { commandStop } from "../tools/bash.js";
import { previewCut } from "../tools/command-output.js";
import { callSummary, SHORT_ARGUMENTS_LENGTH } from "./tool-line.js";

/** The line printed for lines the runner's cut left out between two reports. */
export function notShownLine(lines: number): string {
  return `[… ${lines} ${lines === 1 ? "line" : "lines"} not shown …]`;
}

/**
 * Follows one command's output through the runner's reports (tools/command-runner.ts
 * `onOutput`: the output so far, whole, or past the runner's limit its head and tail around a
 * line counting the line breaks cut, read by command-output.ts `previewCut`). Lines are counted
 * from the output's start, so a line is given once, in order, whatever the cut keeps; lines that
 * scrolled out of the tail between two reports are given as one {@link notShownLine}. Holds two
 * numbers and the last unfinished line: memory stays bounded whatever the command prints.
 */
export class OutputFollower {
  /** 0-based index of the next line to give: every line before it was given or counted. */
  private next = 0;
  /** The last report's unfinished line (text after its last line break) and its index. */
  private unfinished: { index: number; text: string } | undefined;
  /** Whether any report was followed. */
  followed = false;

  /**
   * The whole lines of `output` (one report) not given before, each without its line break;
   * a line the command has not finished (no line break yet) waits for a later report or
   * {@link finish}.
   */
  follow(output: string): string[] {
    this.followed = true;
    const cut = previewCut(output);
    if (cut === undefined) {
      return this.take(output.split("\n"), 0);
    }
    const head = cut.head.split("\n");
    // The head's last piece runs on into the cut: only its whole lines count.
    const given = this.take(head, 0);
    // The tail's first piece is line `tailStart`, from its start (command-output.ts cuts on line
    // boundaries), unless the tail is the end of one unfinished line whose start was cut.
    const tailStart = head.length - 1 + cut.cutLineBreaks;
    const tail = cut.tail.split("\n");
    const firstWhole = tail.length === 1 ? tailStart + 1 : tailStart;
    if (this.next < firstWhole) {
      given.push(notShownLine(firstWhole - this.next));
      this.next = firstWhole;
    }
    if (tail.length === 1) {
      // Nothing to give: the line has no start here, and its end may come in a later report.
      this.unfinished = undefined;
      return given;
    }
    given.push(...this.take(tail, tailStart));
    return given;
  }

  /** The command ended: its last line when it did not end with a line break (or nothing). */
  finish(): string[] {
    const last = this.unfinished;
    if (last === undefined || last.text === "" || last.index < this.next) {
      return [];
    }
    this.next = last.index + 1;
    return [last.text];
  }

  /**
   * The whole lines among `pieces` (the text split at its line breaks; the first piece is line
   * `firstIndex`, the last one unfinished) from {@link next} on.
   */
  private take(pieces: readonly string[], firstIndex: number): string[] {
    const whole = pieces.length - 1;
    const given = pieces.slice(Math.max(0, this.next - firstIndex), Math.max(0, whole));
    this.next = Math.max(this.next, firstIndex + whole);
    this.unfinished = { index: firstIndex + whole, text: pieces.at(-1) ?? "" };
    return given;
  }
}

/** Paints `text` with an SGR code (`2`: dim), or leaves it as it is without colour. */
type Paint = (code: string, text: string) => string;

/**
 * The running commands of the plain interactive face (`TerminalRenderer`'s `liveOutput`): each
 * call's output as it comes, read from the session model's `partialOutput`
 * (src/session/session-model/), under a line naming the call (`● bash <command>`), each line as
 * the finished output's lines are printed (four columns in, without terminal control
 * sequences: events/errors.ts terminalText). When the call ends, its last unfinished line, or
 * all of its output when none was reported while it ran; its ✓/✗ line then stands alone.
 */
export class LiveCommandOutput {
  private readonly followers = new Map<string, OutputFollower>();
  /** Calls some of whose output was printed. */
  private readonly shown = new Set<string>();
  /** The call whose rows were printed last: another call's rows get their own heading. */
  private headed: string | undefined;

  /** The rows to print for a running call's new output (its `tool.execution_partial_result`). */
  progress(toolCall: ToolCall | undefined, paint: Paint): string[] {
    if (toolCall?.partialOutput === undefined) {
      return [];
    }
    const follower = this.followers.get(toolCall.toolCallId) ?? new OutputFollower();
    this.followers.set(toolCall.toolCallId, follower);
    return this.rows(toolCall, follower.follow(toolCall.partialOutput), paint);
  }

  /**
   * The rows to print before an ended call's line: its last unfinished line, or all of a
   * command's output when it ended before any report (what is printed does not depend on how
   * fast it ran); and whether its output was shown (then its line has no output rows under it).
   */
  end(toolCall: ToolCall, paint: Paint): { rows: string[]; shown: boolean } {
    const { toolCallId } = toolCall;
    const follower = this.followers.get(toolCallId);
    this.followers.delete(toolCallId);
    const lines = follower === undefined ? endedOutput(toolCall) : follower.finish();
    const rows = this.rows(toolCall, lines, paint);
    const shown = this.shown.delete(toolCallId);
    return { rows, shown };
  }

  private rows(toolCall: ToolCall, lines: readonly string[], paint: Paint): string[] {
    if (lines.length === 0) {
      return [];
    }
    const { toolCallId, toolName } = toolCall;
    this.shown.add(toolCallId);
    const heading =
      this.headed === toolCallId
        ? []
        : [
            `● ${paint("2", `${terminalText(toolName)} ${callSummary(toolCall.arguments, SHORT_ARGUMENTS_LENGTH)}`)}`,
          ];
    this.headed = toolCallId;
    return [...heading, ...lines.map((line) => paint("2", `    ${terminalText(line)}`))];
  }
}

/**
 * The lines of an ended `bash` call's output (its result, without the closing `<exited …>`
 * line: the session model's `output`), as `-p` reads them under a failed call's line
 * (tool-line.ts `toolOutcome`): a command the runner stopped, what it printed before; none for a
 * call refused, interrupted, or that could not start (its line says why), nor for other tools.
 */
function endedOutput(toolCall: ToolCall): string[] {
  const { status, toolName, exitCode, signal } = toolCall;
  if (toolName !== "bash" || status === "denied" || status === "interrupted") {
    return [];
  }
  const text = toolCall.output ?? "";
  const stopped = status === "failed" && exitCode === undefined && signal === undefined;
  const printed = stopped ? (commandStop(text)?.output ?? "") : text;
  const follower = new OutputFollower();
  return [...follower.follow(printed), ...follower.finish()];
}
