/** Small helpers for the lines the terminal faces print. */

/** The first line of `text`, trimmed, with `…` when more lines follow. */
export function firstLine(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.search(/\r?\n/);
  return end === -1 ? trimmed : `${trimmed.slice(0, end)}…`;
}

/** `text` cut to `length` code points, ending with `…` when cut. */
export function abbreviate(text: string, length: number): string {
  const codePoints = Array.from(text);
  if (codePoints.length <= length) {
    return text;
  }
  return `${codePoints.slice(0, length - 1).join("")}…`;
}

/** `text` without its trailing line breaks. */
export function trimTrailingNewlines(text: string): string {
  return text.replace(/(\r?\n)+$/, "");
}

/** `word` for one, `words` for any other count. */
export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/**
 * The last `count` non-blank lines of `text`, each cut to its first `maxLength` UTF-16 code units
 * (never inside a code point). Read from the end, line by line: the answer holds at most
 * `count` × `maxLength` characters however long `text` is, and `text` is never split whole.
 */
export function lastLinesOf(text: string, count: number, maxLength: number): string[] {
  const lines: string[] = [];
  let end = text.length;
  while (lines.length < count && end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line =
      end - start > maxLength
        ? cutAtCodePoint(text.slice(start, start + maxLength))
        : text.slice(start, end);
    if (line.trim() !== "") {
      lines.unshift(line);
    }
    end = start - 1;
  }
  return lines;
}

/** `text` without its last code unit when that is the first half of a surrogate pair. */
function cutAtCodePoint(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** Lines of a prompt `sessions show` prints, at most. */
const PROMPT_LINES = 20;
/** Characters of a prompt `sessions show` prints, at most. */
const PROMPT_CHARACTERS = 4000;

/**
 * A prompt's lines, folded as tool results are: its first {@link PROMPT_LINES} lines within its
 * first {@link PROMPT_CHARACTERS} characters, then a line saying how much is left out and where
 * to see it all. Only the start of a long prompt (a 5 MB paste) is split into lines.
 */
export function foldedPrompt(text: string): string[] {
  const lines = text.slice(0, PROMPT_CHARACTERS).split("\n").slice(0, PROMPT_LINES);
  // `text.slice(0, shown)` is what the lines show; a left-out line starts with its `\n`.
  const shown = lines.join("\n").length;
  if (shown >= text.length) {
    return lines;
  }
  let moreLines = 0;
  for (let at = text.indexOf("\n", shown); at !== -1; at = text.indexOf("\n", at + 1)) {
    moreLines += 1;
  }
  const characters = `${text.length - shown} more characters`;
  const more =
    moreLines === 0 ? characters : `${characters}, ${moreLines} more ${plural(moreLines, "line")}`;
  return [...lines, `… ${more} (sessions export --format markdown shows the whole prompt)`];
}
