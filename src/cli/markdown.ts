/**
 * Markdown for a terminal: the one renderer of both terminal faces (issue 24 item 5). The
 * interactive screen draws replies with {@link StreamedMarkdown} as they stream; `-p` renders each
 * complete answer with {@link markdownRenderer} when stdout is a terminal. Both draw a reply block
 * by block (markdown-blocks.ts) with pi-tui's `Markdown` and the interactive theme
 * (`interactive/theme.ts`), plus task-list checkboxes, which pi-tui drops: `- [ ] a` shows as
 * `- ☐ a`, `- [x] b` as `- ☑ b`, as the plan does.
 * Loaded by `-p` only when it renders Markdown (a dynamic import: pi-tui is not on its start-up
 * path otherwise).
 */

import { type Component, Markdown, type MarkdownTheme } from "@mariozechner/pi-tui";
import { terminalText } from "../events/errors.js";
import type { RowSink, RowsWriter } from "./interactive/scrolled-rows.js";
import { createTheme } from "./interactive/theme.js";
import { type MarkdownBlock, MarkdownBlocks } from "./markdown-blocks.js";

export type MarkdownRenderer = (markdown: string) => string;

/** pi-tui's Markdown component with task-list checkboxes kept (☐ / ☑). */
export class TerminalMarkdown extends Markdown {
  constructor(text: string, theme: MarkdownTheme) {
    super(withCheckboxes(terminalText(text)), 0, 0, theme);
  }

  override setText(text: string): void {
    super.setText(withCheckboxes(terminalText(text)));
  }
}

/**
 * The renderer of `-p` for a terminal `width` columns wide (at least 40), in colour: the lines
 * {@link TerminalMarkdown} draws, without the padding to the width, ending with one `\n`.
 */
export function markdownRenderer(width: number): MarkdownRenderer {
  const theme = createTheme(true).markdown;
  const columns = Math.max(40, width);
  return (markdown) => {
    try {
      const blocks = new MarkdownBlocks();
      blocks.append(markdown);
      blocks.settle();
      const rows: string[] = [];
      for (const block of [...blocks.finished, blocks.last]) {
        for (const row of blockRows(block, columns, theme)) {
          rows.push(row.trimEnd());
        }
      }
      while (rows.at(-1) === "") {
        rows.pop();
      }
      return `${rows.join("\n")}\n`;
    } catch {
      // A renderer bug must not lose the answer: print it as it came, safe for the terminal.
      const text = terminalText(markdown);
      return text.endsWith("\n") ? text : `${text}\n`;
    }
  };
}

/**
 * A reply drawn as it streams: the rows of its finished blocks (markdown-blocks.ts) are drawn once
 * for a width and kept; each frame draws the last block only. Memory: the reply's text and its
 * rows (padded to the width), in proportion to the reply; time: each finished block drawn once per
 * width, plus the last block (at most markdown-blocks.ts's BLOCK_LIMIT characters) per frame. The
 * screen's frames take the rows with {@link renderInto}, which makes no array of them all.
 */
export class StreamedMarkdown implements Component, RowsWriter {
  private blocks = new MarkdownBlocks();
  /** The reply so far, as given. */
  private text = "";
  /** The width the rows are for; `undefined`: to draw again. */
  private width: number | undefined;
  /** Rows of the first {@link drawnBlocks} finished blocks at {@link width}. */
  private finishedRows: string[] = [];
  private drawnBlocks = 0;
  /** A blank row at {@link width}: every blank row of the finished blocks is this one string. */
  private blankRow = "";
  /** The last block's view: pi-tui's `Markdown` keeps its rows until its text changes. */
  private readonly lastView: TerminalMarkdown;
  /** The last block's rows, while nothing has changed; `undefined`: to draw. */
  private lastRows: string[] | undefined;
  /** Every row, as {@link render} answered, while nothing has changed. */
  private rows: string[] | undefined;

  constructor(
    private readonly theme: MarkdownTheme,
    text = "",
  ) {
    this.lastView = new TerminalMarkdown("", theme);
    this.append(text);
  }

  /** Adds the next piece of the reply. */
  append(text: string): void {
    this.text += text;
    this.blocks.append(text);
    this.lastRows = undefined;
    this.rows = undefined;
  }

  /** The whole reply: the rest of it when it continues what came, else drawn anew. */
  setText(text: string): void {
    if (text.startsWith(this.text)) {
      this.append(text.slice(this.text.length));
      return;
    }
    this.blocks = new MarkdownBlocks();
    this.text = "";
    this.invalidate();
    this.append(text);
  }

  invalidate(): void {
    this.width = undefined;
    this.lastRows = undefined;
    this.rows = undefined;
  }

  render(width: number): string[] {
    const lastRows = this.draw(width);
    if (this.rows === undefined) {
      this.rows = lastRows.length === 0 ? this.finishedRows : this.finishedRows.concat(lastRows);
    }
    return this.rows;
  }

  /** Writes the rows {@link render} answers into a frame's `sink`. */
  renderInto(width: number, sink: RowSink): void {
    const lastRows = this.draw(width);
    // As scrolled-rows.ts putRows does; not imported, so that -p's Markdown loads no module of the screen's.
    for (const rows of [this.finishedRows, lastRows]) {
      for (const row of rows) {
        sink.rows[sink.count++] = row;
      }
    }
  }

  /** Draws what changed at `width`: the finished blocks not drawn yet, then the last block. */
  private draw(width: number): string[] {
    if (this.lastRows !== undefined && width === this.width) {
      return this.lastRows;
    }
    this.rows = undefined;
    if (width !== this.width) {
      this.width = width;
      this.finishedRows = [];
      this.drawnBlocks = 0;
      this.blankRow = " ".repeat(width);
      this.lastView.invalidate();
    }
    this.blocks.settle();
    const { finished, last } = this.blocks;
    for (; this.drawnBlocks < finished.length; this.drawnBlocks++) {
      const block = finished[this.drawnBlocks];
      for (const row of block === undefined ? [] : blockRows(block, width, this.theme)) {
        // pi-tui pads each row to the width: the blank rows between blocks share one string.
        this.finishedRows.push(row.length === width && row === this.blankRow ? this.blankRow : row);
      }
    }
    this.lastView.setText(last.text);
    this.lastRows = trimmedRows(this.lastView.render(width), last);
    return this.lastRows;
  }
}

/** The rows of one block, `width` columns wide. */
function blockRows(block: MarkdownBlock, width: number, theme: MarkdownTheme): string[] {
  return trimmedRows(new TerminalMarkdown(block.text, theme).render(width), block);
}

/** `rows` without the fence rows of a code block cut at the block's edges. */
function trimmedRows(rows: string[], block: MarkdownBlock): string[] {
  const start = block.continuesCode ? 1 : 0;
  const end = block.codeGoesOn ? rows.length - 1 : rows.length;
  return start === 0 && end === rows.length ? rows : rows.slice(start, end);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TASK_ITEM = /^(\s*(?:[-*+]|\d+[.)])\s+)\[([ xX])\](?=\s|$)/;

/** `markdown` with the `[ ]` / `[x]` of task-list items as ☐ / ☑, code blocks left alone. */
export function withCheckboxes(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const opening = FENCE.exec(line)?.[1];
      if (opening !== undefined) {
        if (fence === undefined) {
          fence = opening;
        } else if (opening[0] === fence[0] && opening.length >= fence.length) {
          fence = undefined;
        }
        return line;
      }
      if (fence !== undefined) {
        return line;
      }
      return line.replace(TASK_ITEM, (_match, prefix: string, mark: string) =>
        mark === " " ? `${prefix}☐` : `${prefix}☑`,
      );
    })
    .join("\n");
}
