import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Text that is not turnloop's own reaches the terminal without its control sequences (README,
// "Text from elsewhere on your terminal"): a command's output that clears the screen and moves
// the cursor, a reply that sets the terminal's title or writes the clipboard (trial 22, finding 1).

/** A command printing a line, then clearing the screen, moving home, to the alternate screen. */
const SCREEN_WIPING_COMMAND = String.raw`printf 'line1\n\033[2J\033[H\033[?1049hALT\033[5;1Hmoved\n'`;

/** A reply that sets the title (OSC 0), clears the screen, and writes the clipboard (OSC 52). */
const TITLE_SETTING_REPLY =
  "model says \u001b]0;PWNED-TITLE\u0007 and \u001b[2J cleared \u001b]52;c;aGVsbG8=\u0007 clip";

const bashCall = (command: string) => ({
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
});

describe.skipIf(tmuxMissing())("escape codes from elsewhere on the terminal", () => {
  interactiveTest(
    "the interactive screen stays whole and its title unchanged",
    async ({ fixture }) => {
      fixture.server.enqueue(
        bashCall(SCREEN_WIPING_COMMAND),
        { text: "fin" },
        {
          text: TITLE_SETTING_REPLY,
        },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 100, rows: 30 });
      const title = terminal.title();
      terminal.type("escapes");
      await terminal.waitFor(/^fin\s*$/m);
      terminal.type("again");
      const screen = await terminal.waitFor(/model says/);
      const lines = screen
        .split("\n")
        .map((line) => line.trimEnd().replace(/ [\d.]+ (?:ms|s|min)$/, " Ns"));
      // The banner is still on the screen: nothing cleared it or moved the drawing elsewhere.
      expect(lines[0]).toMatch(/^turnloop in /);
      const from = lines.indexOf("› escapes");
      expect(lines.slice(from, from + 6)).toEqual([
        "› escapes",
        `✓ bash ${SCREEN_WIPING_COMMAND}  Ns`,
        "  line1",
        "  ALTmoved",
        "",
        "fin",
      ]);
      expect(lines).toContain("model says  and  cleared  clip");
      expect(terminal.title()).toBe(title);
    },
  );

  interactiveTest(
    "-p on a terminal: the answer without the codes, the title unchanged",
    async ({ fixture }) => {
      fixture.server.enqueue(
        bashCall(String.raw`printf '\033]0;CMD-TITLE\007\033[31mRED\n'; exit 1`),
        {
          text: TITLE_SETTING_REPLY,
        },
      );
      const terminal = fixture.open(["-p", "go", "--allow-all-tools"], { columns: 100 });
      const title = terminal.title();
      const screen = await terminal.waitFor(/\[exit 0\]/);
      const lines = screen.split("\n").map((line) => line.trimEnd());
      expect(lines).toContain("    RED");
      expect(lines).toContain("model says  and  cleared  clip");
      expect(terminal.title()).toBe(title);
    },
  );
});

test("-p to a pipe: the answer is data, written as the model sent it", async ({ cli, model }) => {
  model.enqueue({ text: TITLE_SETTING_REPLY });
  const result = await cli(["-p", "go"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`${TITLE_SETTING_REPLY}\n`);
});

test("sessions show draws the conversation without the codes", async ({ cli, model }) => {
  model.enqueue({ text: TITLE_SETTING_REPLY });
  const result = await cli(["-p", "go"]);
  const sessionId = printedSessionId(result.stderr);
  const shown = await cli(["sessions", "show", sessionId]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("model says  and  cleared  clip");
  expect(shown.stdout).not.toContain("\u001b");
  expect(shown.stdout).not.toContain("\u0007");
});
