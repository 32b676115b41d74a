/** Rows the transcript (transcript.ts) draws of its own: a prompt's, a reply's reasoning. */

import { type Component, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { terminalText } from "../../events/errors.js";

/**
 * A reply's reasoning on the full screen, collapsed to one dim row: `thinking: ` and its first
 * line, `…` after it when more follows; it grows while the reasoning streams
 * (`assistant.reasoning_delta`) and is set whole from the reply (`assistant.message`'s
 * `reasoning`), so a reopened session draws it as it was live. `sessions show` says the same
 * first line (render.ts `(thinking)`); the export holds it whole. Drawn without terminal control
 * sequences (events/errors.ts terminalText): the model wrote it.
 */
export class ReasoningView implements Component {
  private text = "";

  /** `messageId`: the reply's; `paint`: the theme's dim style. */
  constructor(
    readonly messageId: string,
    private readonly paint: (text: string) => string,
  ) {}

  append(delta: string): void {
    this.text += delta;
  }

  set(text: string): void {
    this.text = text;
  }

  render(width: number): string[] {
    const start = this.text.search(/\S/);
    if (start < 0) {
      return [];
    }
    const end = this.text.indexOf("\n", start);
    const first = (end < 0 ? this.text.slice(start) : this.text.slice(start, end)).trimEnd();
    const more = end >= 0 && this.text.slice(end).trim() !== "" ? " …" : "";
    return [this.paint(truncateToWidth(`thinking: ${terminalText(first)}${more}`, width))];
  }

  invalidate(): void {}
}

/**
 * A prompt's lines as rows of `width` columns: `› ` before the first, every other row (the other
 * lines, and each line's continuation when it is wider than the terminal) two columns in, under
 * the text.
 */
export function promptRows(lines: readonly string[], width: number): string[] {
  const room = Math.max(1, width - 2);
  return lines.flatMap((line, index) =>
    wrapTextWithAnsi(line, room).map((row, rowIndex) =>
      index === 0 && rowIndex === 0 ? `› ${row}` : `  ${row}`,
    ),
  );
}
