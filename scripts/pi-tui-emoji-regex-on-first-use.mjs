/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's emoji regex (`/^\p{RGI_Emoji}$/v`, in
 * `dist/utils.js`) is built the first time a grapheme that could be an emoji is measured, not
 * while the module loads (issue 26).
 *
 * V8 checks a regex literal when it compiles the module, and checking `\p{RGI_Emoji}` under the
 * `v` flag builds Unicode's whole set of emoji sequences: about 20 ms of CPU (Node 20) before the
 * interactive face could draw its input box, whose first frame holds no emoji (pi-tui tests the
 * regex only after its own `couldBeEmoji` pre-filter). The plugin replaces the literal with an
 * object whose `test` builds the same regex with `new RegExp` on its first call and reuses it;
 * `test` is the only way utils.js uses it, so widths are unchanged. A pi-tui whose utils.js
 * declares or uses the regex differently fails the build.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_UTILS = /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/;
const DECLARATION = "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;";
const ON_FIRST_USE = [
  "let rgiEmojiRegexBuilt;",
  "const rgiEmojiRegex = {",
  '  test: (text) => (rgiEmojiRegexBuilt ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(text),',
  "};",
].join("\n");

export const piTuiEmojiRegexOnFirstUse = {
  name: "pi-tui-emoji-regex-on-first-use",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PI_TUI_UTILS }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      // Code lines (comments aside) that name the regex other than to call its `test`.
      const otherUses = source
        .split("\n")
        .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line) && line.trim() !== DECLARATION)
        .filter((line) => /\brgiEmojiRegex\b(?!\.test\()/.test(line));
      if (source.split(DECLARATION).length !== 2 || otherUses.length > 0) {
        throw new Error(`${path}: pi-tui no longer declares and tests its emoji regex as expected`);
      }
      return { contents: source.replace(DECLARATION, ON_FIRST_USE), loader: "js" };
    });
  },
};
