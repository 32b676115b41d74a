/**
 * Markdown for a terminal: the one renderer of both terminal faces (issue 24 item 5). The
 * interactive screen draws replies with {@link TerminalMarkdown} as they stream; `-p` renders each
 * complete answer with {@link markdownRenderer} when stdout is a terminal. Both are pi-tui's
 * `Markdown` with the interactive theme (`interactive/theme.ts`), plus task-list checkboxes,
 * which pi-tui drops: `- [ ] a` shows as `- ☐ a`, `- [x] b` as `- ☑ b`, as the plan does.
 * Loaded by `-p` only when it renders Markdown (a dynamic import: pi-tui is not on its start-up
 * path otherwise).
 */

import { Markdown, type MarkdownTheme } from "@mariozechner/pi-tui";
import { terminalText } from "../events/errors.js";
import { createTheme } from "./interactive/theme.js";

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
      const lines = new TerminalMarkdown(markdown, theme).render(columns);
      const text = lines.map((line) => line.trimEnd()).join("\n");
      return `${text.replace(/\n+$/, "")}\n`;
    } catch {
      // A renderer bug must not lose the answer: print it as it came, safe for the terminal.
      const text = terminalText(markdown);
      return text.endsWith("\n") ? text : `${text}\n`;
    }
  };
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
