/**
 * The rows of the user's own `!command`s in the transcript (transcript.ts), live and reopened:
 * a blank row and its `$ command` line, then its output's last lines, as a model's command's are
 * drawn (output-lines.ts `hiddenLinesNote`).
 */

import { type Container, Spacer } from "@mariozechner/pi-tui";
import { exportShowsAll, hiddenLinesNote, outputLines } from "../output-lines.js";
import type { ShellRunView } from "./conversation-view.js";
import type { Theme } from "./theme.js";
import { LiveOutputLines } from "./tool-call-view.js";

/** Lines of a `!command`'s output the transcript shows: the user asked for it, so more than a tool's preview. */
const SHELL_OUTPUT_LINES = 20;

/** Where a `!command`'s rows go: the transcript, its way of drawing a note, its session's id. */
export interface ShellRowsTarget {
  readonly container: Container;
  readonly theme: Theme;
  note(note: string, style: "plain" | "dim"): void;
  sessionId(): string | undefined;
}

/**
 * A `!command` runs: its heading ({@link shellHeading}), then its output's last lines, redrawn as
 * they come as a running call's are; once it ends, {@link shellOutput} in their place.
 */
export function shellRun(target: ShellRowsTarget, command: string): ShellRunView {
  shellHeading(target, command);
  const live = new LiveOutputLines(target.theme);
  target.container.addChild(live);
  return {
    progress: (output) => live.show(output),
    end: (output) => {
      target.container.removeChild(live);
      shellOutput(target, output);
    },
  };
}

/**
 * A `!command`'s output once it ended, live or reopened: its last {@link SHELL_OUTPUT_LINES}
 * lines, under the note saying how many earlier ones are left out and where all are (the saved
 * file of a cut output), as a model's command's are (trial r3s36 P3-4: 4,870 lines of
 * `!seq 1 2000000` flooded the scrollback).
 */
export function shellOutput(target: ShellRowsTarget, output: string): void {
  const lines = outputLines(output, { last: SHELL_OUTPUT_LINES });
  for (const row of hiddenLinesNote(lines, "earlier", exportShowsAll(target.sessionId()))) {
    target.note(row, "dim");
  }
  if (lines.last.length > 0) {
    target.note(lines.last.join("\n"), "plain");
  }
}

/** The first rows of a `!command`, live or reopened: a blank row, then `$ command`. */
export function shellHeading(target: ShellRowsTarget, command: string): void {
  target.container.addChild(new Spacer(1));
  target.note(`$ ${command}`, "plain");
}
