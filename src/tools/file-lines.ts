/**
 * The lines of a file's text, as editors and ripgrep count them: a final line break ends the last
 * line rather than starting an empty one, so `"a\nb\n"` and `"a\nb"` both have 2 lines and `""`
 * has none. A `\r` before a `\n` stays on its line (callers that show lines drop it).
 */
export function fileLines(text: string): string[] {
  if (text === "") {
    return [];
  }
  const lines = text.split("\n");
  if (text.endsWith("\n")) {
    lines.pop();
  }
  return lines;
}
