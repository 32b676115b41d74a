import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A `!command` showed nothing but its `$ command` line until it ended, however long it ran. Its
// output's last lines now show under that line as they come, as a running tool call's do
// (interactive-live-output.test.ts), and all of its output takes their place when it ends.

/**
 * A shell loop that waits until the test creates `gate` in the repository: the command's output
 * before it is what the screen must show while the command runs.
 */
const WAIT_FOR_GATE = "while [ ! -e gate ]; do sleep 0.05; done";

/** The terminal's width. */
const COLUMNS = 140;

/** How a `!command` that exited 0 ends on screen. */
const ENDED = "exit 0 · the output goes to the model with your next prompt";

/** The screen's rows from the `$ command` row up to the input box's rule. */
function runRows(command: string, screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.indexOf(`$ ${command}`);
  const end = rows.findIndex((row, index) => index > start && row.startsWith("───"));
  return start < 0 ? rows : rows.slice(start, end).filter((row) => row !== "");
}

describe.skipIf(tmuxMissing())("the interactive screen: a running `!command`'s output", () => {
  interactiveTest(
    "shows the output's last four lines under the command as they come (cut at the edge, hiding characters marked), then all of it in their place; the scrollback keeps only the final view",
    async ({ fixture }) => {
      // The lines are built by the command (`seq -f`), so that its row never matches them; the
      // last one is wider than the terminal and holds a right-to-left override.
      const command = `seq -f 'shell-%g' 2 6; printf 'wide-\\342\\200\\256-%0150d\\n' 0; ${WAIT_FOR_GATE}; seq -f 'shell-%g' 7 7`;
      // Wide enough for the command's row.
      const terminal = await fixture.openReady([], { columns: COLUMNS, rows: 30 });
      await terminal.idle();
      terminal.type(`!${command}`);
      const running = await terminal.waitFor(/ {2}shell-6\n {2}wide-/);
      const wide = `wide-⟨U+202E⟩-${"0".repeat(150)}`;
      expect(runRows(command, running)).toEqual([
        `$ ${command}`,
        "  shell-4",
        "  shell-5",
        "  shell-6",
        `  ${wide.slice(0, COLUMNS - 5)}...`,
      ]);
      await writeFile(join(fixture.repository, "gate"), "");
      const done = await terminal.waitFor(/exit 0 · the output goes/);
      const final = [
        `$ ${command}`,
        "shell-2",
        "shell-3",
        "shell-4",
        "shell-5",
        "shell-6",
        wide.slice(0, COLUMNS),
        wide.slice(COLUMNS),
        "shell-7",
        ENDED,
      ];
      expect(runRows(command, done)).toEqual(final);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      const scrollback = await terminal.screen(2000);
      expect(runRows(command, scrollback)).toEqual(final);
      // No frame of the running command was left behind.
      expect(scrollback.match(/^ {2}shell-/gm)).toBeNull();
    },
  );

  interactiveTest(
    "in a terminal lower than the screen's content, the scrollback keeps one copy of the command: the final one",
    async ({ fixture }) => {
      const command = `seq -f 'step-%g' 1 3; ${WAIT_FOR_GATE}; seq -f 'step-%g' 4 6`;
      // Eight rows: the input box and the command with its live lines do not fit together.
      const terminal = await fixture.openReady([], { columns: COLUMNS, rows: 8 });
      await terminal.idle();
      terminal.type(`!${command}`);
      await terminal.waitFor(/ {2}step-1\n {2}step-2\n {2}step-3\n/);
      await writeFile(join(fixture.repository, "gate"), "");
      await terminal.waitFor(/exit 0 · the output goes/);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      const scrollback = await terminal.screen(2000);
      expect(runRows(command, scrollback)).toEqual([
        `$ ${command}`,
        ...["step-1", "step-2", "step-3", "step-4", "step-5", "step-6"],
        ENDED,
      ]);
      expect(scrollback.match(/\$ seq -f 'step/g)).toHaveLength(1);
      expect(scrollback.match(/^ {2}step-/gm)).toBeNull();
    },
  );

  interactiveTest(
    "stays cancellable with Ctrl-C: its live lines give way to the output it printed and `cancelled`",
    async ({ fixture }) => {
      const command = `echo shell-$((1+1)); ${WAIT_FOR_GATE}`;
      const terminal = await fixture.openReady([], { columns: 80 });
      await terminal.idle();
      terminal.type(`!${command}`);
      const running = await terminal.waitFor(/ {2}shell-2\n/);
      expect(runRows(command, running)).toEqual([`$ ${command}`, "  shell-2"]);
      terminal.key("C-c");
      const cancelled = await terminal.waitFor(/cancelled · the output goes/);
      expect(runRows(command, cancelled)).toEqual([
        `$ ${command}`,
        "shell-2",
        "cancelled · the output goes to the model with your next prompt",
      ]);
    },
  );
});
