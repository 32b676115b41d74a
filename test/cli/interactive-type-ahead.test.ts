import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

/** What `/usage` prints in a session with no model request yet. */
const USAGE = /\/usage\s*\n {2}turns: +0\s*\n {2}input tokens: +0\s*\n {2}output tokens: +0/;

/** The slash menu is open under the input box, offering `name`. */
function menuOffers(name: string): RegExp {
  return new RegExp(`─{20,}\\n[^\\n]*\\n─{20,}\\n(?:.*\\n)*?\\s*(?:→\\s*)?${name}\\b`);
}

describe.skipIf(tmuxMissing())("turnloop (interactive): type-ahead through the slash menu", () => {
  interactiveTest.for([
    { name: "the whole burst before the menu is computed", first: "", rest: "/usage\r" },
    { name: "after `/` opened the menu", first: "/", rest: "usage\r", gate: "help" },
    { name: "after `/u` narrowed the menu", first: "/u", rest: "sage\r", gate: "usage" },
    { name: "after `/us`, Tab and Enter in the burst", first: "/us", rest: "a\t\r", gate: "usage" },
  ])(
    "keys typed $name all count, in order: /usage runs",
    async ({ first, rest, gate }, { fixture }) => {
      const terminal = await fixture.openReady();
      if (first !== "") {
        terminal.write(first);
        await terminal.waitFor(menuOffers(gate ?? ""));
      }
      // One write: every key reaches the CLI in one burst, before the menu can follow.
      terminal.write(rest);
      const screen = await terminal.waitFor(USAGE);
      expect(screen).not.toMatch(/unknown command/);
      expect(fixture.server.requests).toHaveLength(0);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  // Under load, interactive-commands.test.ts saw `/ses` then Tab stay `/ses`: a Tab that came
  // before the menu's (asynchronous) suggestions opened the menu instead of completing. Tab now
  // completes a command being typed whether or not the menu is there yet.
  interactiveTest(
    "Tab in the burst that typed /ses, before the menu is computed, completes /sessions",
    async ({ fixture }) => {
      const terminal = await fixture.openReady();
      terminal.write("/ses\t");
      // The input box between its two rules holds the completed name and the space after it.
      await terminal.waitFor(/─{20,}\n *\/sessions *\n─{20,}/);
      terminal.key("Enter");
      await terminal.waitFor(/no sessions in this folder/);
      expect(fixture.server.requests).toHaveLength(0);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "an @mention typed past faster than the menu follows is sent as typed on Enter",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "It says Tuesday." });
      const terminal = await fixture.openReady();
      terminal.write("what does @no");
      await terminal.waitFor(/notes\.md/);
      terminal.write("tes.md say?\r");
      await terminal.waitFor(/It says Tuesday\./);
      expect(fixture.lastMessage(0)).toMatch(
        /^what does @notes\.md say\?\n\nAttached file notes\.md:/,
      );
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "a 3000-line paste ending with a line break says +3000 lines, and is sent whole with what was typed around it",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Got it." });
      const terminal = await fixture.openReady();
      const lines = Array.from({ length: 3000 }, (_, index) => `log line ${index + 1}`);
      terminal.write("before ");
      // Too long for `tmux set-buffer`'s argument: loaded from a file, then pasted (bracketed).
      const file = join(fixture.home, "paste.txt");
      await writeFile(file, `${lines.join("\n")}\n`);
      const tmux = (...args: string[]) =>
        execFileSync("tmux", ["-L", terminal.socketName, ...args]);
      tmux("load-buffer", "-b", "big", file);
      tmux("paste-buffer", "-p", "-b", "big", "-t", "main");
      await terminal.waitFor(/before \[paste #1 \+3000 lines\]/);
      terminal.write("after");
      terminal.key("Enter");
      await terminal.waitFor(/Got it\./);
      expect(fixture.lastMessage(0)).toBe(`before ${lines.join("\n")}\nafter`);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
    60_000,
  );
});
