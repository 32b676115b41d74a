import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial 40 F11: `/clear` (Claude Code's name) and `/quit` (Codex's) got "unknown command" with
// no pointer to `/new` and `/exit`. They are now those commands' other names, listed by /help;
// a mistyped command name is told the nearest one.

describe("slash commands under other agents' names", () => {
  test("/clear starts a new session, /quit ends, /help lists both, a typo is told the nearest name", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "First answer." });
    const result = await cli([], { stdin: "hello\n/clear\n/hlep\n/help\n/quit\nnever sent\n" });
    expect(result.code, result.stderr).toBe(0);
    const { stdout } = result;
    const firstId = printedSessionId(stdout);
    // /clear opened a new session (never saved: no prompt was sent in it).
    const opened = /\/clear\n {2}new session ([0-9a-f-]{36})\n/.exec(stdout)?.[1];
    expect(opened).toMatch(/^[0-9a-f-]{36}$/);
    expect(opened).not.toBe(firstId);
    expect(stdout).toMatch(/no prompt was sent: the session was not saved\n$/);
    expect(stdout).toContain(
      "/hlep\n  unknown command /hlep (did you mean /help?); /help lists them\n",
    );
    const help = stdout.split("\n").filter((line) => /^ {2}\/(new|exit)\b/.test(line));
    expect(help).toEqual([
      expect.stringMatching(/^ {2}\/new, \/clear +Start a new session in this folder$/),
      expect.stringMatching(/^ {2}\/exit, \/quit +Close the session and quit$/),
    ]);
    // /quit ended the face: the line after it was never sent, and only the first prompt was.
    expect(model.requests).toHaveLength(1);
    expect(stdout).not.toContain("never sent");
  });
});

// Session 41: Tab completion offered /new and /exit but not their other names, so a habit's
// `/cl` + Tab completed nothing it knew (the menu is the shared command list; the aliases were
// only in /help and in what a typed line matches).
describe.skipIf(tmuxMissing())("Tab completion on the interactive screen", () => {
  interactiveTest(
    "completes /clear and /quit, which then run as /new and /exit",
    async ({ fixture }) => {
      const terminal = await fixture.openReady([], { rows: 30 });
      terminal.write("/clea");
      terminal.key("Tab");
      // The input box between its two rules holds the completed name.
      await terminal.waitFor(/─{20,}\n *\/clear *\n─{20,}/);
      terminal.key("Enter");
      await terminal.waitFor(/new session [0-9a-f-]{36}/);
      terminal.write("/qui");
      terminal.key("Tab");
      await terminal.waitFor(/─{20,}\n *\/quit *\n─{20,}/);
      terminal.key("Enter");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
