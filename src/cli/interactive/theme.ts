import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

/** A style applied to text: ANSI SGR codes, or nothing with `NO_COLOR`. */
export type Paint = (text: string) => string;

/** The few styles the interactive screen uses. */
export interface Theme {
  color: boolean;
  dim: Paint;
  bold: Paint;
  accent: Paint;
  success: Paint;
  failure: Paint;
  warning: Paint;
  added: Paint;
  removed: Paint;
  editor: EditorTheme;
  markdown: MarkdownTheme;
  selectList: SelectListTheme;
}

/** The theme for a terminal; `color: false` (NO_COLOR, https://no-color.org) paints nothing. */
export function createTheme(color: boolean): Theme {
  const sgr =
    (open: string, close: string): Paint =>
    (text) =>
      color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  const plain: Paint = (text) => text;
  const dim = sgr("2", "22");
  const bold = sgr("1", "22");
  const accent = sgr("36", "39");
  const selectList: SelectListTheme = {
    selectedPrefix: accent,
    selectedText: color ? bold : (text) => text,
    description: dim,
    scrollInfo: dim,
    noMatch: dim,
  };
  return {
    color,
    dim,
    bold,
    accent,
    success: sgr("32", "39"),
    failure: sgr("31", "39"),
    warning: sgr("33", "39"),
    added: sgr("32", "39"),
    removed: sgr("31", "39"),
    editor: { borderColor: color ? dim : plain, selectList },
    markdown: {
      heading: bold,
      link: accent,
      linkUrl: dim,
      code: accent,
      codeBlock: plain,
      codeBlockBorder: dim,
      quote: sgr("3", "23"),
      quoteBorder: dim,
      hr: dim,
      listBullet: accent,
      bold,
      italic: sgr("3", "23"),
      strikethrough: sgr("9", "29"),
      underline: sgr("4", "24"),
    },
    selectList,
  };
}
