import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { piTuiEmojiRegexOnFirstUse } from "../../scripts/pi-tui-emoji-regex-on-first-use.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI builds pi-tui's emoji regex on first use
 * (scripts/pi-tui-emoji-regex-on-first-use.mjs). pi-tui's `utils.js` is bundled twice here, as it
 * is shipped and as the CLI's bundle rewrites it, and both must measure, cut and wrap the same
 * text (emoji sequences, wide and zero-width characters, ANSI codes) identically.
 */

type Utilities = {
  visibleWidth(text: string): number;
  truncateToWidth(text: string, width: number): string;
  wrapTextWithAnsi(text: string, width: number): string[];
};

const UTILITIES_MODULE = fileURLToPath(
  new URL("../../node_modules/@mariozechner/pi-tui/dist/utils.js", import.meta.url),
);

let directory: string;
let shipped: Utilities;
let deferred: Utilities;
let deferredSource: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-pi-tui-emoji-"));
  const shippedFile = await bundledModule(directory, "shipped", UTILITIES_MODULE, []);
  const deferredFile = await bundledModule(directory, "deferred", UTILITIES_MODULE, [
    piTuiEmojiRegexOnFirstUse,
  ]);
  deferredSource = await readFile(deferredFile, "utf8");
  shipped = (await import(pathToFileURL(shippedFile).href)) as Utilities;
  deferred = (await import(pathToFileURL(deferredFile).href)) as Utilities;
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Text whose width depends on the emoji regex, and text that never reaches it. */
const TEXTS = [
  "plain ASCII",
  "─── box ───",
  "😀",
  "👍🏽 thumbs",
  "👨‍👩‍👧 family",
  "❤️ heart with VS16",
  "❤ heart without",
  "☀ sun, ⌚ watch, ⭐ star",
  "🇫🇷 flag, 🇫 alone",
  "中文 and ｶﾀｶﾅ",
  "e\u0301 combining, \u200b zero width",
  "\u001b[1mbold 😀\u001b[22m and \u001b[31mred\u001b[39m",
  "tab\tand 🎉 party",
];

describe("pi-tui's emoji regex built on first use", () => {
  test("the rewritten module holds no emoji regex literal, only the RegExp built on first use", () => {
    expect(deferredSource).not.toContain("/^\\p{RGI_Emoji}$/v");
    expect(deferredSource).toContain('new RegExp("^\\\\p{RGI_Emoji}$", "v")');
  });

  test("widths, cuts and wraps are those of the shipped module", () => {
    const measured = (utilities: Utilities) =>
      TEXTS.map((text) => [
        utilities.visibleWidth(text),
        utilities.truncateToWidth(text, 7),
        utilities.wrapTextWithAnsi(text, 6),
      ]);
    // The deferred module first, so its regex is built by these calls.
    const deferredFigures = measured(deferred);
    expect(deferredFigures).toEqual(measured(shipped));
    expect(deferredFigures.map(([width]) => width)).toEqual([
      11, 11, 2, 9, 9, 18, 15, 24, 17, 13, 24, 15, 18,
    ]);
  });
});
