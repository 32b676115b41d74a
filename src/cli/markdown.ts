/**
 * Markdown for a terminal: headings, lists, tables and code blocks with highlighting, rendered by
 * `marked` with `marked-terminal`. Loaded only when stdout is a terminal with colour allowed.
 */
export type MarkdownRenderer = (markdown: string) => string;

/** Loads the renderer for a terminal `width` columns wide. */
export async function loadMarkdownRenderer(width: number): Promise<MarkdownRenderer> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([
    import("marked"),
    import("marked-terminal"),
  ]);
  const marked = new Marked(
    markedTerminal({ width: Math.max(40, width), reflowText: true, tab: 2 }),
  );
  return (markdown) => {
    try {
      return String(marked.parse(markdown, { async: false })).replace(/\n+$/, "\n");
    } catch {
      // A renderer bug must not lose the answer: print it as it came.
      return markdown.endsWith("\n") ? markdown : `${markdown}\n`;
    }
  };
}
