/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's editor (`dist/components/editor.js`) draws
 * a plain border line as one styled run, `borderColor("─".repeat(width))`, not as `width` copies
 * of `borderColor("─")` (issue 26: spawn → input box, and every frame after it).
 *
 * With turnloop's theme (dim) an 80-column border was 80 pairs of `ESC[2m`/`ESC[22m` around each
 * `─`: 720 bytes instead of 89, and every width check of the line (the editor's, the TUI's before
 * it writes) walked 160 escape sequences. Paired, 40 rounds, CPU to the input box −0.8 ms (lower
 * in 28 of 40; bench/notes/box.md). The screen is the same: the editor already styles its
 * scrolled borders (`─── ↑ 3 more ───…`) as one run, and test/cli/pi-tui-border-one-span.test.ts
 * compares the shipped and rewritten editors' lines. A pi-tui whose editor draws its borders
 * otherwise fails the build.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_EDITOR =
  /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]components[\\/]editor\.js$/;

const PER_CHARACTER = "result.push(horizontal.repeat(width));";
const ONE_SPAN = 'result.push(this.borderColor("─".repeat(width)));';

export const piTuiBorderOneSpan = {
  name: "pi-tui-border-one-span",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PI_TUI_EDITOR }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      if (
        source.split(PER_CHARACTER).length !== 3 ||
        !source.includes('const horizontal = this.borderColor("─");')
      ) {
        throw new Error(`${path}: pi-tui's editor no longer draws its borders as expected`);
      }
      return { contents: source.replaceAll(PER_CHARACTER, ONE_SPAN), loader: "js" };
    });
  },
};
