import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createTheme } from "../../src/cli/interactive/theme.js";
import { markdownRenderer, StreamedMarkdown, TerminalMarkdown } from "../../src/cli/markdown.js";
import { BLOCK_LIMIT } from "../../src/cli/markdown-blocks.js";

// A reply is drawn block by block (src/cli/markdown-blocks.ts): streamed in pieces of any size,
// it shows the rows pi-tui's Markdown draws for the whole reply at once, and a reply too long for
// that is shown whole, every character, with no fence rows in the middle of its code.

const theme = createTheme(true).markdown;

/** Replies of every kind of block: lists loose and tight, code, quotes, tables, headings. */
const REPLIES = [
  readFileSync(new URL("../../README.md", import.meta.url), "utf8"),
  [
    "# Title",
    "Setext heading",
    "===",
    "",
    "1. one",
    "",
    "2. two",
    "   continued in the item",
    "",
    "3. three",
    "",
    "    indented code",
    "",
    "    more of it",
    "",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "> quoted **bold**",
    "lazy line",
    "",
    "```ts",
    "const x = 1;",
    "",
    "const y = 2;",
    "```",
    "text right after the code",
    "",
    "- [ ] open",
    "- [x] done",
    "",
    "---",
    "",
    "\tA tab, a `code span`, and a final line without a break",
  ].join("\n"),
];

/** `text` streamed into a view in pieces of `size`, drawn after each piece. */
function streamed(text: string, size: number, width: number): string[] {
  const view = new StreamedMarkdown(theme);
  for (let at = 0; at < text.length; at += size) {
    view.append(text.slice(at, at + size));
    view.render(width);
  }
  return view.render(width);
}

/** Text without colour codes, the rows' padding cut. */
function plain(rows: readonly string[]): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are stripped to compare text.
  return rows.map((row) => row.replace(/\u001b\[[0-9;]*m/g, "").trimEnd());
}

describe("a reply drawn block by block", () => {
  test.each([1, 7, 100, 1000, 1_000_000])(
    "streamed in pieces of %i characters: the rows of the whole reply drawn at once",
    (size) => {
      // The README drawn after every few characters takes long: in pieces of 1000 and more.
      for (const reply of size < 1000 ? REPLIES.slice(1) : REPLIES) {
        const whole = new TerminalMarkdown(reply, theme).render(80);
        expect(streamed(reply, size, 80)).toEqual(whole);
      }
    },
  );

  test("another width draws the rows of that width", () => {
    const reply = REPLIES[1] ?? "";
    const view = new StreamedMarkdown(theme, reply);
    view.render(80);
    expect(view.render(50)).toEqual(new TerminalMarkdown(reply, theme).render(50));
  });

  test("a reply given whole again after streaming keeps its rows; another one replaces them", () => {
    const view = new StreamedMarkdown(theme);
    view.append("para one\n\npara");
    view.render(40);
    view.setText("para one\n\npara two");
    expect(plain(view.render(40))).toEqual(["para one", "", "para two"]);
    view.setText("something else");
    expect(plain(view.render(40))).toEqual(["something else"]);
  });

  test("one line longer than a block: every character shown, in order", () => {
    const line = `${"H".repeat(3 * BLOCK_LIMIT + 5)} END`;
    const rows = plain(streamed(line, 4096, 100));
    expect(rows.join("").replaceAll(" ", "")).toBe(line.replaceAll(" ", ""));
    expect(rows.at(-1)).toMatch(/ END$/);
    expect(rows.every((row) => row.length <= 100)).toBe(true);
  });

  test("a code block longer than a block: its lines in order between one pair of fences", () => {
    const code = Array.from({ length: 3000 }, (_, index) => `line ${index} of the code`);
    const reply = ["```ts", ...code, "```", "", "after"].join("\n");
    expect(reply.length).toBeGreaterThan(3 * BLOCK_LIMIT);
    const rows = plain(streamed(reply, 4096, 100));
    expect(rows).toEqual(["```ts", ...code.map((line) => `  ${line}`), "```", "", "after"]);
  });

  test("a tight list longer than a block, its items over two lines: the rows of the whole list", () => {
    // Cut inside an item, the next part began with the item's indented second line, drawn as a
    // paragraph of its own (README's list of the interactive session's parts, past 16 KiB).
    // Numbered as a model numbers them: a part's first number is where its list starts.
    for (const marker of [() => "-", (index: number) => `${index + 1}.`]) {
      const items = Array.from(
        { length: 400 },
        (_, index) => `${marker(index)} item ${index}, its first line\n   and its second line`,
      );
      const reply = `${items.join("\n")}\n\nafter`;
      expect(reply.length).toBeGreaterThan(BLOCK_LIMIT);
      expect(streamed(reply, 4096, 60)).toEqual(new TerminalMarkdown(reply, theme).render(60));
    }
  });

  test("-p's renderer shows a long reply whole", () => {
    const reply = `${"word ".repeat(10_000)}\n\n${"x".repeat(2 * BLOCK_LIMIT)} the end`;
    const rows = markdownRenderer(80)(reply).split("\n");
    const text = plain(rows).join(" ").replaceAll(/\s+/g, "");
    expect(text).toBe(reply.replaceAll(/\s+/g, ""));
    expect(plain(rows).at(-2)).toMatch(/the end$/);
  });
});
