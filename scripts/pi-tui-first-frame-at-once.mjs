/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's TUI (`dist/tui.js`) draws its first frame
 * as soon as the code that asked for it has run, not on a timer (issue 26: spawn → input box).
 *
 * `TUI.requestRender()` coalesces the requests of one turn of the event loop (`process.nextTick`),
 * then `scheduleRender()` keeps renders at least `MIN_RENDER_INTERVAL_MS` (16 ms) apart with a
 * `setTimeout`. For the first frame there is nothing to keep apart from (`lastRenderAt` is still
 * 0), so the delay is 0, but a `setTimeout(…, 0)` still waits for a timer (at least 1 ms) and a
 * turn of the event loop while the process has nothing else to do: the interactive face's input
 * box came that much later. This plugin makes `scheduleRender()` render at once when no frame has
 * been drawn yet (the same steps as the timer's callback); every later frame goes through the
 * timer as before, and the first frame's bytes are the same (test/cli/pi-tui-first-frame.test.ts).
 * A pi-tui whose `scheduleRender()` no longer starts as expected fails the build.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_TUI = /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]tui\.js$/;

const SCHEDULE_START = [
  "    scheduleRender() {",
  "        if (this.stopped || this.renderTimer || !this.renderRequested) {",
  "            return;",
  "        }",
  "        const elapsed = performance.now() - this.lastRenderAt;",
].join("\n");

const FIRST_FRAME_AT_ONCE = [
  "    scheduleRender() {",
  "        if (this.stopped || this.renderTimer || !this.renderRequested) {",
  "            return;",
  "        }",
  "        if (this.lastRenderAt === 0) {",
  "            this.renderRequested = false;",
  "            this.lastRenderAt = performance.now();",
  "            this.doRender();",
  "            if (this.renderRequested) {",
  "                this.scheduleRender();",
  "            }",
  "            return;",
  "        }",
  "        const elapsed = performance.now() - this.lastRenderAt;",
].join("\n");

export const piTuiFirstFrameAtOnce = {
  name: "pi-tui-first-frame-at-once",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PI_TUI_TUI }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      if (source.split(SCHEDULE_START).length !== 2 || !source.includes("lastRenderAt = 0;")) {
        throw new Error(`${path}: pi-tui's scheduleRender() no longer starts as expected`);
      }
      return { contents: source.replace(SCHEDULE_START, FIRST_FRAME_AT_ONCE), loader: "js" };
    });
  },
};
