import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fifoMaker } from "../support/fifos.js";
import { InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import { removeTree } from "../support/remove-tree.js";

// The terminal tests' waits (test/support/interactive-terminal.ts) against a frame written in two
// parts: pi-tui wraps each frame in a synchronized update (`CSI ? 2026 h` … `l`), tmux 3.3 draws
// each part as it reads it, and a look between the two saw the frame's first rows without its
// last (CI: a status line cut short under an input box a pattern had matched, and the test's
// whole-screen comparison failed). A wait now takes a screen only once its frame is ended.

const makeFifo = fifoMaker();

describe.skipIf(tmuxMissing())("the terminal tests' waits", () => {
  test("never take a frame half drawn: the rows the frame has yet to write are waited for", async () => {
    const folder = await mkdtemp(join(tmpdir(), "turnloop-frames-"));
    // Two FIFOs: a reader of one opened again could meet the first writer's end (EOF) as it closes.
    const start = join(folder, "start");
    const gate = join(folder, "gate");
    makeFifo(start);
    makeFifo(gate);
    // Once let start: the frame's first row, then (once let go on) its last row and the frame's end.
    const script = [
      `read start < "$1"`,
      String.raw`printf '\033[?2026hfirst row\n'`,
      `read go < "$2"`,
      String.raw`printf 'last row\033[?2026l'`,
      "exec sleep 600",
    ].join("; ");
    const terminal = new InteractiveTerminal([], {
      cwd: folder,
      env: { PATH: process.env.PATH },
      program: ["sh", "-c", script, "sh", start, gate],
      columns: 40,
      rows: 6,
    });
    try {
      // The empty screen, looked at through the waits' client: attached before the program starts.
      await terminal.waitFor(/^$/);
      writeFileSync(start, "start\n");
      // The wait is shown the half frame, and opens the gate then: a wait that took that screen
      // returns it without `last row`.
      let shownHalf = false;
      const screen = await terminal.waitUntil((shown) => {
        if (!shownHalf && shown === "first row") {
          shownHalf = true;
          writeFileSync(gate, "go\n");
        }
        return shown.startsWith("first row");
      }, "the first row");
      expect(shownHalf).toBe(true);
      expect(screen.split("\n")).toEqual(["first row", "last row"]);
    } finally {
      terminal.close();
      await removeTree(folder);
    }
  });
});
