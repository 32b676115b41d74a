import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { piTuiBorderOneSpan } from "../../scripts/pi-tui-border-one-span.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI's pi-tui editor draws a plain border as one styled run
 * (scripts/pi-tui-border-one-span.mjs). pi-tui's `components/editor.js` is bundled as shipped and
 * as rewritten; both editors, with the dim border of turnloop's theme, render the same texts at
 * the same widths: the same characters on every line, the borders shorter by their escapes.
 */

const EDITOR_MODULE = fileURLToPath(
  new URL("../../node_modules/@mariozechner/pi-tui/dist/components/editor.js", import.meta.url),
);

type Editor = { setText(text: string): void; render(width: number): string[] };
type EditorModule = {
  Editor: new (
    tui: { terminal: { rows: number }; requestRender(): void },
    theme: { borderColor: (text: string) => string; selectList: object },
  ) => Editor;
};

const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;
const plain = (text: string) => text;
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what is removed.
const withoutEscapes = (line: string) => line.replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "");

/** The lines an editor of `module` renders for `text` at `width`, in a 24-row terminal. */
function rendered(module: EditorModule, text: string, width: number, border = dim) {
  const tui = { terminal: { rows: 24 }, requestRender: () => undefined };
  const editor = new module.Editor(tui, { borderColor: border, selectList: {} });
  editor.setText(text);
  return editor.render(width);
}

let directory: string;
let shipped: EditorModule;
let oneSpan: EditorModule;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-pi-tui-border-"));
  const [shippedFile, oneSpanFile] = await Promise.all([
    bundledModule(directory, "shipped", EDITOR_MODULE, []),
    bundledModule(directory, "one-span", EDITOR_MODULE, [piTuiBorderOneSpan]),
  ]);
  shipped = await import(pathToFileURL(shippedFile).href);
  oneSpan = await import(pathToFileURL(oneSpanFile).href);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const TEXTS = ["", "hello", "a line\nand another", "word ".repeat(60), "x\n".repeat(12)];

describe("pi-tui's editor with its borders as one run (scripts/pi-tui-border-one-span.mjs)", () => {
  test("an empty editor, 80 columns: each border is one dim run of 80 ─", () => {
    const lines = rendered(oneSpan, "", 80);
    const border = dim("─".repeat(80));
    expect([lines[0], lines.at(-1)]).toEqual([border, border]);
    expect(rendered(shipped, "", 80)[0]).toBe(dim("─").repeat(80));
  });

  test("the same characters on every line as shipped, for texts that scroll and wrap", () => {
    for (const width of [10, 40, 80]) {
      for (const text of TEXTS) {
        const asShipped = rendered(shipped, text, width).map(withoutEscapes);
        expect(rendered(oneSpan, text, width).map(withoutEscapes)).toEqual(asShipped);
      }
    }
  });

  test("without colour (NO_COLOR), the lines are the same bytes as shipped", () => {
    for (const text of TEXTS) {
      expect(rendered(oneSpan, text, 50, plain)).toEqual(rendered(shipped, text, 50, plain));
    }
  });
});
