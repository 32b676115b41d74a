import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A tool call's arguments are drawn whole on every face: a carriage return in a command is drawn
// as its code point, never as a return that writes the rest over its start, and so are an escape
// sequence's characters, so that the question names what runs (README, "Text from elsewhere on
// your terminal"; trial 47 F1: `touch PWNED; # \r echo hello` was asked and shown as `echo hello`,
// F4: a command's escape sequences were removed from its `$` line).

const CR_COMMAND = "touch PWNED; # \r echo hello";
const CR_SHOWN = "touch PWNED; # ⟨U+000D⟩ echo hello";
const ESC_COMMAND = "echo visible \u001b[8mecho HIDDEN\u001b[0m; \u001b[2K\u001b[1Gls";
const ESC_SHOWN = "echo visible ⟨U+001B⟩[8mecho HIDDEN⟨U+001B⟩[0m; ⟨U+001B⟩[2K⟨U+001B⟩[1Gls";

const bashCall = (command: string) => ({
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
});

/** The screen's rows from the one starting `first` to the one starting `last`, ends trimmed. */
function rowsBetween(screen: string, first: string, last: string): string[] {
  const rows = screen.split("\n").map((row) => row.trim());
  const from = rows.findIndex((row) => row.startsWith(first));
  const to = rows.findIndex((row, index) => index > from && row.startsWith(last));
  return rows.slice(from, to + 1);
}

describe.skipIf(tmuxMissing())("a tool call's arguments drawn whole", () => {
  interactiveTest(
    "the interactive screen: the question and the tool line show the return, and the command named is the one that runs",
    async ({ fixture }) => {
      fixture.server.enqueue(bashCall(CR_COMMAND), { text: "done" });
      const terminal = await fixture.openReady([], { columns: 120, rows: 40 });
      terminal.type("go");
      const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(rowsBetween(question, "● bash", "[t]")).toEqual([
        `● bash ${CR_SHOWN}  waiting for your answer`,
        `turnloop wants to run ${CR_SHOWN}`,
        `$ ${CR_SHOWN}`,
        "",
        "[y] yes, once",
        `[a] yes, always for bash(${CR_SHOWN}) in this session`,
        "[p] yes, always for bash(touch PWNED *) in this session",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("y");
      const screen = await terminal.waitFor(/^done/m);
      const lines = screen.split("\n").map((line) => line.trim().replace(/ +[\d.]+ (?:ms|s)$/, ""));
      expect(lines).toContain(`✓ bash ${CR_SHOWN}`);
      expect(existsSync(join(fixture.repository, "PWNED"))).toBe(true);
    },
  );

  interactiveTest(
    "-p on a terminal: the question shows the escape sequences, the tool line both kinds",
    async ({ fixture }) => {
      fixture.server.enqueue(bashCall(ESC_COMMAND), bashCall(CR_COMMAND), { text: "done" });
      const terminal = fixture.open(["-p", "go"], { columns: 160, rows: 40 });
      const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(rowsBetween(question, "turnloop wants", "[t]")).toEqual([
        `turnloop wants to run ${ESC_SHOWN}`,
        `$ ${ESC_SHOWN}`,
        "[y] yes, once",
        `[a] yes, always for bash(${ESC_SHOWN}) in this session`,
        "[p] yes, always for bash(echo visible *) in this session (⟨U+001B⟩[2K⟨U+001B⟩[1Gls still asks)",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("n\n");
      await terminal.waitFor(/turnloop wants to run touch/);
      terminal.type("y\n");
      const screen = await terminal.waitFor(/\[exit 0\]/);
      const lines = screen
        .split("\n")
        .map((line) => line.trim().replace(/ \([\d.]+ (?:ms|s)\)/, ""));
      expect(lines.filter((line) => line.startsWith("✓") || line.startsWith("✗"))).toEqual([
        // Cut at -p's 60 characters, as any long command is.
        `✗ bash ${ESC_SHOWN.slice(0, 59)}… denied: Permission denied for 'bash': the user said no`,
        `✓ bash ${CR_SHOWN}`,
      ]);
    },
  );
});
