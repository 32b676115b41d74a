/**
 * A reply's Markdown cut into blocks that are drawn one at a time, so that drawing a long reply
 * costs memory and time in proportion to its length (a 5 MB reply took 1 GB of memory, and every
 * streamed piece drew the whole reply again). Each block is drawn once and its rows kept; only the
 * last, still growing, block is drawn again as the reply streams.
 *
 * Where a block ends: after a blank line between two top-level blocks (as `marked`, the parser of
 * pi-tui's Markdown, reads them), once the line after it is complete. pi-tui draws a top-level
 * block from the block alone and the type of the one after it, and a blank line draws as an empty
 * row whatever follows, so the rows of the parts are the rows of the whole.
 *
 * A block that grows past {@link BLOCK_LIMIT} characters without such a blank line (a 5 MB line,
 * a very long code block or list) is cut anyway: before its last top-level list item in the limit,
 * else at its last line break, else its last space, else at the limit. Nothing is lost; the parts
 * of a code block are drawn as one (the fence rows at the cut are left out), a list's items on both
 * sides of a cut draw the whole list's rows, but other Markdown that spans such a cut (a `**bold**`
 * across it, a list item's own lines) is drawn part by part.
 */

import { Lexer } from "marked";

/** Characters a block holds at most before it is cut without a blank line (see the module comment). */
export const BLOCK_LIMIT = 16_384;

/** A fence line opening or closing a code block (CommonMark: up to 3 spaces, 3 or more ` or ~). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A blank line: the only place a block is cut where Markdown says so. */
const BLANK_LINE = /\n[ \t]*\n/;

/** One block of a reply, drawn on its own. */
export interface MarkdownBlock {
  /** The block's Markdown; a code block cut before it starts again with its fence line. */
  text: string;
  /** A code block cut before this block goes on in it: the first row drawn (its fence) is left out. */
  continuesCode: boolean;
  /** Its code block goes on in the next block: its last row drawn (the closing fence) is left out. */
  codeGoesOn: boolean;
}

/** A reply's Markdown as it streams in: {@link finished} blocks, and the {@link last} one. */
export class MarkdownBlocks {
  /** Blocks that no further text changes. */
  readonly finished: MarkdownBlock[] = [];
  /** The text after the finished blocks (a code block's fence line first, when it goes on). */
  private tail = "";
  private tailContinuesCode = false;
  /** Text came since the last {@link settle}. */
  private grown = false;

  /** Adds the next piece of the reply. */
  append(text: string): void {
    if (text !== "") {
      this.tail += text;
      this.grown = true;
    }
  }

  /** The block still growing (empty text when the reply so far ends with a finished block). */
  get last(): MarkdownBlock {
    return { text: this.tail, continuesCode: this.tailContinuesCode, codeGoesOn: false };
  }

  /** Moves what no further text can change from the last block to {@link finished}. */
  settle(): void {
    if (!this.grown) {
      return;
    }
    this.grown = false;
    for (;;) {
      const end = this.blockEnd();
      if (end === undefined) {
        return;
      }
      this.cut(end);
    }
  }

  /** Where the first block of the tail ends, if it is finished or too long. */
  private blockEnd(): { at: number; fence?: string } | undefined {
    const window = this.tail.length > BLOCK_LIMIT ? this.tail.slice(0, BLOCK_LIMIT) : this.tail;
    const lines = window.slice(0, window.lastIndexOf("\n") + 1);
    if (BLANK_LINE.test(lines)) {
      const at = lastBlankLineEnd(lines);
      if (at > 0) {
        return { at };
      }
    }
    if (this.tail.length <= BLOCK_LIMIT) {
      return undefined;
    }
    const at = forcedEnd(window);
    return { at, fence: openFence(window.slice(0, at)) };
  }

  private cut({ at, fence }: { at: number; fence?: string }): void {
    this.finished.push({
      text: this.tail.slice(0, at),
      continuesCode: this.tailContinuesCode,
      codeGoesOn: fence !== undefined,
    });
    const rest = this.tail.slice(at);
    this.tail = fence === undefined ? rest : `${fence}\n${rest}`;
    this.tailContinuesCode = fence !== undefined;
  }
}

/**
 * The end of the last blank line of `lines` (complete lines) that lies between two top-level
 * blocks, the one after it complete up to its line; 0 when there is none. Tokens are followed
 * while their text is the text read (the lexer drops a link definition's and a `\r`'s).
 */
function lastBlankLineEnd(lines: string): number {
  const tokens = Lexer.lex(lines);
  let offset = 0;
  let end = 0;
  for (const [index, token] of tokens.entries()) {
    if (!lines.startsWith(token.raw, offset)) {
      break;
    }
    offset += token.raw.length;
    if (token.type === "space" && index < tokens.length - 1 && offset < lines.length) {
      end = offset;
    }
  }
  return end;
}

/** A line that starts a top-level list item (CommonMark: `-`, `*`, `+`, or `1.`/`1)` then a space). */
const LIST_ITEM_START = /\n(?=[-*+] |\d{1,9}[.)] )/g;

/**
 * Where a `window` of {@link BLOCK_LIMIT} characters with no block end in it is cut: before its
 * last top-level list item in its second half (a list's items drawn part by part draw the rows of
 * the whole list; a cut inside an item would start the next part with its indented continuation,
 * drawn as a paragraph of its own), else at its last line break, its last space, or the limit.
 */
function forcedEnd(window: string): number {
  const half = BLOCK_LIMIT / 2;
  const itemStart = lastListItemStart(window);
  if (itemStart >= half) {
    return itemStart;
  }
  const lineEnd = window.lastIndexOf("\n") + 1;
  if (lineEnd >= half) {
    return lineEnd;
  }
  const wordEnd = window.lastIndexOf(" ") + 1;
  if (wordEnd >= half) {
    return wordEnd;
  }
  const last = window.charCodeAt(window.length - 1);
  // Never between the halves of a surrogate pair.
  return last >= 0xd800 && last <= 0xdbff ? window.length - 1 : window.length;
}

/** Where the last line of `window` that starts a top-level list item begins; 0 when none does. */
function lastListItemStart(window: string): number {
  let start = 0;
  for (const match of window.matchAll(LIST_ITEM_START)) {
    start = match.index + 1;
  }
  return start;
}

/** The fence line of the code block `text` ends inside, if it ends inside one. */
function openFence(text: string): string | undefined {
  let fence: string | undefined;
  let fenceLine: string | undefined;
  let start = 0;
  while (start < text.length) {
    const next = text.indexOf("\n", start);
    const end = next === -1 ? text.length : next;
    const line = text.slice(start, end);
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined && fence === undefined) {
      fence = marker;
      fenceLine = line;
    } else if (marker?.[0] === fence?.[0] && (marker?.length ?? 0) >= (fence?.length ?? 0)) {
      fence = undefined;
    }
    start = end + 1;
  }
  return fence === undefined ? undefined : fenceLine;
}
