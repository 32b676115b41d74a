import { describe, expect } from "vitest";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial of round 3 session 36 (P3-4): the user's own `!seq 1 2000000` printed about 4,870 lines
// into the terminal, where a model's command of that size shows a few lines and the saved path.
// A `!command` now shows its last 20 lines under the note that says how many earlier ones are
// left out and where all are, as a model's command does.

describe.skipIf(tmuxMissing())("a !command with a long output", () => {
  interactiveTest("shows its last 20 lines under a note naming the rest", async ({ fixture }) => {
    const terminal = await fixture.openReady([], { columns: 100, rows: 40 });
    terminal.type("!seq 1 300");
    const screen = await terminal.waitFor(/the output goes to the model with your next prompt/);
    const rows = screenLines(screen);
    const start = rows.indexOf("$ seq 1 300");
    expect(rows.slice(start, start + 23)).toEqual([
      "$ seq 1 300",
      expect.stringMatching(
        /^… 280 earlier lines \(turnloop sessions export [0-9a-f]{8} --format markdown shows all\)$/,
      ),
      ...Array.from({ length: 20 }, (_, index) => String(281 + index)),
      "exit 0 · the output goes to the model with your next prompt",
    ]);
  });
});
