/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's Unicode machinery in `dist/utils.js`, its
 * emoji regex and its grapheme segmenter, is built when text first needs it, not while the module
 * loads (issue 26). Both cost CPU before the interactive face's first frame, which needs neither:
 *
 * - V8 checks the regex literal `/^\p{RGI_Emoji}$/v` when it compiles the module, and checking
 *   `\p{RGI_Emoji}` under the `v` flag builds Unicode's whole set of emoji sequences: about 20 ms
 *   (Node 20). The literal becomes an object whose `test` builds the same regex with `new RegExp`
 *   on its first call; `test` is the only way utils.js uses it, after its `couldBeEmoji` filter.
 * - `new Intl.Segmenter` at the module's top is the process's first `Intl` object, which starts
 *   ICU: 8–13 ms. The shared segmenter (also `getSegmenter()`, which the editor and the input
 *   take at import) becomes an object whose `segment` gives, for text whose every code unit is its
 *   own grapheme (U+0000–U+02FF but CR, and box drawing U+2500–U+257F: no combining mark, joiner,
 *   emoji, regional indicator or Hangul there, and no CR LF pair), one segment a character, as
 *   the Unicode rules do (UAX #29); any other text goes to the `Intl.Segmenter`, built then. Its
 *   callers iterate the segments and read `segment` and `index`. The first frame (box borders `─`,
 *   the status line's `·`) is all such text.
 *
 * Widths, cuts and wraps are unchanged (test/cli/pi-tui-unicode-on-first-use.test.ts compares
 * them with the shipped module's). A pi-tui whose utils.js declares or uses either differently
 * fails the build.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_UTILS = /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/;

const EMOJI_DECLARATION = "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;";
const EMOJI_ON_FIRST_USE = [
  "let rgiEmojiRegexBuilt;",
  "const rgiEmojiRegex = {",
  '  test: (text) => (rgiEmojiRegexBuilt ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(text),',
  "};",
].join("\n");

const SEGMENTER_DECLARATION =
  'const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });';
const SEGMENTER_ON_FIRST_USE = [
  "let segmenterBuilt;",
  "const ownGraphemes = /^[\\u0000-\\u000c\\u000e-\\u02ff\\u2500-\\u257f]*$/;",
  "const segmenter = {",
  "  segment(text) {",
  "    if (ownGraphemes.test(text)) {",
  "      return Array.from(text, (segment, index) => ({ segment, index, input: text }));",
  "    }",
  '    segmenterBuilt ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });',
  "    return segmenterBuilt.segment(text);",
  "  },",
  "};",
].join("\n");

/** Code lines (comments aside) naming `name` other than as `<name>.<use>(`. */
function otherUses(source, name, use, declaration) {
  const other = new RegExp(`\\b${name}\\b(?!\\.${use}\\()`);
  return source
    .split("\n")
    .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line) && line.trim() !== declaration)
    .filter((line) => other.test(line) && !line.includes(`return ${name};`));
}

export const piTuiUnicodeOnFirstUse = {
  name: "pi-tui-unicode-on-first-use",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PI_TUI_UTILS }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      const expected =
        source.split(EMOJI_DECLARATION).length === 2 &&
        source.split(SEGMENTER_DECLARATION).length === 2 &&
        otherUses(source, "rgiEmojiRegex", "test", EMOJI_DECLARATION).length === 0 &&
        otherUses(source, "segmenter", "segment", SEGMENTER_DECLARATION).length === 0;
      if (!expected) {
        throw new Error(
          `${path}: pi-tui no longer declares and uses its Unicode helpers as expected`,
        );
      }
      return {
        contents: source
          .replace(EMOJI_DECLARATION, EMOJI_ON_FIRST_USE)
          .replace(SEGMENTER_DECLARATION, SEGMENTER_ON_FIRST_USE),
        loader: "js",
      };
    });
  },
};
