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
