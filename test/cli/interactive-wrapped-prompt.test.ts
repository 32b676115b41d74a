import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// The first trial: a prompt whose first line was wider than the terminal was echoed with that
// line's continuation flush-left, under the `› ` mark, while its other lines were indented. Every
// row of the prompt now starts under its text, the first line's continuation too.

/** The rows of the screen from the first one starting with `start`, `count` of them, trimmed. */
function rowsFrom(screen: string, start: string, count: number): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const first = rows.findIndex((row) => row.startsWith(start));
  return first === -1 ? [] : rows.slice(first, first + count);
}

describe.skipIf(tmuxMissing())("turnloop (interactive): a prompt wider than the terminal", () => {
  interactiveTest(
    "its wrapped rows line up under its text, in the box and echoed",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Read." });
      const terminal = await fixture.openReady([], { columns: 40 });
      // At 40 columns the key help is cut ("Enter send..."): the banner says the session is open.
      await terminal.waitFor(/help lists the commands/);
      terminal.write("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu");
      terminal.key("C-j");
      terminal.write("second line is here and it is long enough to wrap too");
      const box = await terminal.waitFor(/wrap too/);
      expect(rowsFrom(box, " alpha", 4)).toEqual([
        " alpha beta gamma delta epsilon zeta",
        " eta theta iota kappa lambda mu",
        " second line is here and it is long",
        " enough to wrap too",
      ]);
      terminal.key("Enter");
      const echoed = await terminal.waitFor(/^Read\./m);
      expect(rowsFrom(echoed, "› alpha", 5)).toEqual([
        "› alpha beta gamma delta epsilon zeta",
        "  eta theta iota kappa lambda mu",
        "  second line is here and it is long",
        "  enough to wrap too",
        "",
      ]);
    },
  );
});
