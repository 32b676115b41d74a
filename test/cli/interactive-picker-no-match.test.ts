import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, pastSession } from "./interactive-support.js";

// A trial of session 18's build (round 3, session 19, item 6): a filter that matched no session
// in the `--resume` picker said "No matching commands" (pi-tui's list's own words).

describe.skipIf(tmuxMissing())("turnloop --resume: the picker's filter", () => {
  interactiveTest(
    "a filter that matches no session says so; Backspace brings the session back",
    async ({ fixture }) => {
      const apples = await pastSession(fixture, "a question about apples", "Apples are red.");
      const terminal = fixture.open(["--resume"], { columns: 100 });
      await terminal.waitFor(/Resume a session of this folder \(type to filter/);
      terminal.write("pears");
      const screen = await terminal.waitFor(/filter: pears\s*\n/);
      expect(screen).toMatch(/^ {2}No matching sessions\s*$/m);
      expect(screen).not.toMatch(/No matching commands/);
      terminal.key("BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
      const widened = await terminal.waitFor(new RegExp(apples.slice(0, 8)));
      expect(widened).not.toMatch(/No matching/);
      terminal.key("Escape");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "the status line shows the picker's keys while it is open, the input box's once a session opens (trial 30)",
    async ({ fixture }) => {
      await pastSession(fixture, "a question about apples", "Apples are red.");
      const terminal = fixture.open(["--resume"], { columns: 100 });
      const picking = await terminal.waitFor(/Resume a session of this folder \(type to filter/);
      const statusRow = (screen: string) => screen.trimEnd().split("\n").at(-1) ?? "";
      expect(statusRow(picking)).toMatch(
        /^type to filter · ↑\/↓ choose · Enter opens · Esc cancels /,
      );
      expect(picking).not.toMatch(/Ctrl-J newline/);
      terminal.key("Enter");
      await terminal.waitFor(/Apples are red\./);
      const opened = await terminal.waitFor(/Enter send · Ctrl-J newline/);
      expect(opened).not.toMatch(/type to filter · ↑/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
