import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial 25: one 5 MB answer took 1 GB of memory on the interactive screen and 843 MB for `-p` on
// a terminal, where a pipe took about 120 MB; memory must stay proportional to the input. A 2 MiB
// answer of one line (the trial's), in one piece: the peak resident memory of the CLI, read at
// its exit, stays under 160 MiB (before the fix it was about 240 MiB for 1 MiB), and the answer's
// end is on the screen as it was sent.

const RECORDER = new URL("./peak-memory-recorder.mjs", import.meta.url).pathname;
const ANSWER = `${"H".repeat(2 * 1024 * 1024)} the end of the answer`;
const BOUND_KIB = 160 * 1024;
/** The answer's end as the screen shows it: the last `H`s, then the words (on the next row). */
const END_SHOWN = /H\s+the end of the answer *\n/;

/** The largest peak any process of the CLI recorded, in KiB. */
function peakKiB(file: string): number {
  const peaks = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => Number(line.split(" ")[1]));
  return Math.max(...peaks);
}

describe.skipIf(tmuxMissing())("one huge answer", () => {
  interactiveTest("-p on a terminal: memory in proportion, the end shown", async ({ fixture }) => {
    const peakFile = join(fixture.home, "peak");
    const env = { NODE_OPTIONS: `--import ${RECORDER}`, TURNLOOP_TEST_PEAK_FILE: peakFile };
    fixture.server.enqueue({ text: ANSWER });
    const terminal = fixture.open(["-p", "one huge answer"], { columns: 100, rows: 30, env });
    const screen = await terminal.waitFor(/\[exit 0\]/, 60_000);
    expect(screen).toMatch(END_SHOWN);
    expect(peakKiB(peakFile)).toBeLessThan(BOUND_KIB);
  });

  interactiveTest(
    "the interactive screen: memory in proportion, the end shown",
    async ({ fixture }) => {
      const peakFile = join(fixture.home, "peak");
      const env = { NODE_OPTIONS: `--import ${RECORDER}`, TURNLOOP_TEST_PEAK_FILE: peakFile };
      fixture.server.enqueue({ text: ANSWER });
      const terminal = await fixture.openReady([], { columns: 100, rows: 30, env });
      terminal.type("one huge answer");
      const screen = await terminal.waitUntil(
        (shown) => END_SHOWN.test(shown) && /Enter send · /.test(shown),
        "the answer's end, idle",
        60_000,
      );
      expect(screen).toMatch(END_SHOWN);
      await terminal.exitWithCtrlC();
      expect(peakKiB(peakFile)).toBeLessThan(BOUND_KIB);
    },
    90_000,
  );
});
