import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A new user's trial (round 3): `seq 1 5000`, kept for the model as its start and end around a
// marker counting the 4,000-odd lines left out, ended on the screen as its last four lines under
// `… 1813 earlier lines`: the lines of the shortened text. The screen now counts the command's
// lines (cli/output-lines.ts `outputLines`), and the saved file's path has a row of its own, wrapped
// only because it is wider than the screen.

/** The terminal's width: the saved file's path is wider. */
const COLUMNS = 60;

describe.skipIf(tmuxMissing())("the interactive screen: a command output cut for the model", () => {
  interactiveTest(
    "counts the 4,996 lines above the last four, and names the saved file on rows of its own",
    async ({ fixture }) => {
      fixture.server.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "seq 1 5000" }) },
          ],
        },
        { text: "Ran it." },
      );
      // A window small enough that the turn's result budget cuts the 23,893 bytes.
      const terminal = await fixture.openReady(["--allow-all-tools", "--context-window", "4096"], {
        columns: COLUMNS,
        rows: 30,
      });
      terminal.type("run the command");
      const done = await terminal.waitFor(/Ran it\./);
      const [sessionId = "(no session)"] = await readdir(join(fixture.home, "session-state"));
      const saved = join(fixture.home, "session-state", sessionId, "tool-results", "call_1.txt");
      // The result the model read, whole: the output and the command's exit.
      const whole = Array.from({ length: 5000 }, (_, index) => index + 1).join("\n");
      expect(await readFile(saved, "utf8")).toBe(`${whole}\n<exited with exit code 0>`);
      const rows = done.split("\n").map((row) => row.trimEnd());
      const start = rows.indexOf("› run the command") + 1;
      const end = rows.indexOf("Ran it.") + 1;
      // The path in pieces as wide as the screen less the two columns of indent.
      const pathRows = (saved.match(new RegExp(`.{1,${COLUMNS - 2}}`, "g")) ?? []).map(
        (piece) => `  ${piece}`,
      );
      expect(pathRows.length).toBeGreaterThan(1);
      expect(
        rows
          .slice(start, end)
          .filter((row) => row !== "")
          .map((row) => row.replace(/ {2}[\d.]+ (?:ms|s|min)$/, "  Ns")),
      ).toEqual([
        "✓ bash seq 1 5000  Ns",
        "  … 4,996 earlier lines; full output saved to",
        ...pathRows,
        "  4997",
        "  4998",
        "  4999",
        "  5000",
        "Ran it.",
      ]);
    },
  );
});
