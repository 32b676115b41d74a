import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { piTuiUnicodeOnFirstUse } from "../../scripts/pi-tui-unicode-on-first-use.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI builds pi-tui's emoji regex and grapheme segmenter on first use
 * (scripts/pi-tui-unicode-on-first-use.mjs). pi-tui's `utils.js` is bundled twice here, as it is
 * shipped and as the CLI's bundle rewrites it, and both must segment, measure, cut and wrap the
 * same text (emoji sequences, combining marks, CR LF, wide and zero-width characters, box drawing,
 * ANSI codes) identically. The `Intl.Segmenter`s each module creates are counted.
 */

type Segment = { segment: string; index: number };
type Utilities = {
  visibleWidth(text: string): number;
  truncateToWidth(text: string, width: number): string;
  wrapTextWithAnsi(text: string, width: number): string[];
  getSegmenter(): { segment(text: string): Iterable<Segment> };
};

const UTILITIES_MODULE = fileURLToPath(
  new URL("../../node_modules/@mariozechner/pi-tui/dist/utils.js", import.meta.url),
);

let directory: string;
let shipped: Utilities;
let deferred: Utilities;
let deferredSource: string;
/** `Intl.Segmenter`s created while each module loaded, then while the first frame's text was measured. */
const segmentersCreated = { shipped: 0, deferred: 0, deferredFirstFrame: 0 };
let created = 0;
const IntlSegmenter = Intl.Segmenter;
/** `Intl`, whose `Segmenter` this test swaps for a counting one while the modules load. */
const intl = Intl as { Segmenter: typeof Intl.Segmenter };

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-pi-tui-unicode-"));
  const shippedFile = await bundledModule(directory, "shipped", UTILITIES_MODULE, []);
  const deferredFile = await bundledModule(directory, "deferred", UTILITIES_MODULE, [
    piTuiUnicodeOnFirstUse,
  ]);
  deferredSource = await readFile(deferredFile, "utf8");
  intl.Segmenter = class CountedSegmenter extends IntlSegmenter {
    constructor(...rest: ConstructorParameters<typeof Intl.Segmenter>) {
      super(...rest);
      created++;
    }
  };
  try {
    shipped = (await import(pathToFileURL(shippedFile).href)) as Utilities;
    segmentersCreated.shipped = created;
    deferred = (await import(pathToFileURL(deferredFile).href)) as Utilities;
    segmentersCreated.deferred = created - segmentersCreated.shipped;
    const before = created;
    // The interactive face's first frame: a dim border, an empty line, the status line.
    deferred.visibleWidth(`\u001b[2m${"─".repeat(80)}\u001b[22m`);
    deferred.truncateToWidth("Enter send · Ctrl-J newline · / commands  bench-model · ask", 60);
    deferred.wrapTextWithAnsi(" ".repeat(80), 80);
    segmentersCreated.deferredFirstFrame = created - before;
  } finally {
    intl.Segmenter = IntlSegmenter;
  }
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Text whose segments and widths depend on the rewritten parts, and text that never reaches them. */
const TEXTS = [
  "plain ASCII",
  "─── box ───",
  "Enter send · Ctrl-J newline · ctx 0%",
  "😀",
  "👍🏽 thumbs",
  "👨‍👩‍👧 family",
  "❤️ heart with VS16",
  "❤ heart without",
  "☀ sun, ⌚ watch, ⭐ star",
  "🇫🇷 flag, 🇫 alone",
  "中文 and ｶﾀｶﾅ",
  "e\u0301 combining, \u200b zero width",
  "─\u0301 box drawing with a combining mark",
  "soft\u00adhyphen, Latin-1 café ÿ, IPA ɐ ʃ ˈ",
  "CR LF\r\nand a lone\rCR",
  "한국어 Hangul",
  "\u001b[1mbold 😀\u001b[22m and \u001b[31mred\u001b[39m",
  "\u001b[2m────\u001b[22m · \u001b[36maccent\u001b[39m",
  "tab\tand 🎉 party",
];

/** Deterministic strings mixing characters of the fast path with ones that are not. */
function mixedTexts(count: number): string[] {
  const pool = [..."a ─·é\u00ad\r\n\t\u0301\u200d😀🇫中\u001b"];
  let seed = 26;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + (next() % 12) }, () => pool[next() % pool.length]).join(""),
  );
}

describe("pi-tui's emoji regex and grapheme segmenter built on first use", () => {
  test("the rewritten module builds no emoji regex and no Intl.Segmenter at load, nor for the first frame", () => {
    expect(deferredSource).not.toContain("/^\\p{RGI_Emoji}$/v");
    expect(deferredSource).toContain('new RegExp("^\\\\p{RGI_Emoji}$", "v")');
    expect(segmentersCreated).toEqual({ shipped: 1, deferred: 0, deferredFirstFrame: 0 });
  });

  test("segments, widths, cuts and wraps are those of the shipped module", () => {
    const texts = [...TEXTS, ...mixedTexts(400)];
    const measured = (utilities: Utilities) =>
      texts.map((text) => [
        [...utilities.getSegmenter().segment(text)].map(({ segment, index }) => [segment, index]),
        utilities.visibleWidth(text),
        utilities.truncateToWidth(text, 7),
        utilities.wrapTextWithAnsi(text, 6),
      ]);
    // The deferred module first, so its regex and segmenter are built by these calls.
    const deferredFigures = measured(deferred);
    expect(deferredFigures).toEqual(measured(shipped));
    expect(deferredFigures.slice(0, TEXTS.length).map(([, width]) => width)).toEqual([
      11, 11, 36, 2, 9, 9, 18, 15, 24, 17, 13, 24, 35, 37, 17, 13, 15, 13, 18,
    ]);
  });
});
