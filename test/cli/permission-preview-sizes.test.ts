import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import { editCall, interactiveTest, printedSessionId } from "./interactive-support.js";

// Trial 39 F5: the question for a `create` that overwrote a 2,733-line file with one line said
// `… 10 more lines` under 12 removed lines and never showed the line the file became; a 40-line
// edit showed 12 removed lines then `… 33 more lines`, no added line. The preview cut a diff that
// line-diff.ts had cut already, counting its rows and hiding its note with the true size. Every
// preview of a change now says both sides' sizes and shows removed and added lines, each side cut
// on its own with its true count.

/** `count` numbered lines, each ending with a line break. */
function numbered(count: number, word: string): string {
  return Array.from({ length: count }, (_, index) => `${word} ${index + 1}\n`).join("");
}

const createCall = (path: string, fileText: string) => ({
  toolCalls: [
    {
      id: "call_1",
      name: "create",
      arguments: JSON.stringify({ path, file_text: fileText, overwrite: true }),
    },
  ],
});

describe("a permission question about a large change", () => {
  interactiveTest(
    "an overwriting create (plain-line face): its sizes, the lines it removes, the line it writes",
    async ({ fixture }) => {
      const path = join(fixture.repository, "README.md");
      await writeFile(path, numbered(2733, "old line"));
      fixture.server.enqueue(createCall("README.md", "replaced\n"), { text: "left alone" });
      const piped = await runCli([], {
        cwd: fixture.repository,
        env: fixture.environment(),
        stdin: "replace the readme\nn\n",
      });
      const lines = piped.stdout.split("\n");
      const asked = lines.findIndex((line) => line.includes("turnloop wants to"));
      expect(lines.slice(asked, asked + 11)).toEqual([
        `> turnloop wants to overwrite README.md (${path})`,
        `    ${path} (overwritten: 2,733 lines become 1)`,
        ...[1, 2, 3, 4, 5, 6].map((line) => `    ${line} - old line ${line}`),
        "        [… 2727 more lines removed]",
        "    1 + replaced",
        expect.stringMatching(/^\[y\] yes, once .* > ✗ create README\.md denied/),
      ]);
      expect(await readFile(path, "utf8")).toBe(numbered(2733, "old line"));
      expect(printedSessionId(piped.stdout)).not.toBe("");
    },
  );
});

describe.skipIf(tmuxMissing())("a long edit's question and finished call", () => {
  interactiveTest(
    "-p on a terminal asks with both sides' sizes and lines; the interactive screen's finished call shows added lines too",
    async ({ fixture }) => {
      const path = join(fixture.repository, "notes.txt");
      const before = numbered(40, "turnloop");
      const after = numbered(40, "TURNLOOP");
      await writeFile(path, before);
      fixture.server.enqueue(editCall("call_1", "notes.txt", before, after), {
        text: "not edited",
      });
      const asking = new InteractiveTerminal(["-p", "shout it"], {
        cwd: fixture.repository,
        env: fixture.environment({ NO_COLOR: "1" }),
        columns: 160,
        rows: 50,
      });
      try {
        const screen = await asking.waitFor(/no, and tell the model why\n>$/);
        const rows = screen.split("\n").map((row) => row.trimEnd());
        const top = rows.indexOf(`    ${path} (40 lines become 40)`);
        expect(rows.slice(top - 1, top + 16)).toEqual([
          `turnloop wants to edit notes.txt (${path})`,
          `    ${path} (40 lines become 40)`,
          ...[1, 2, 3, 4, 5, 6].map((line) => `    ${line} - turnloop ${line}`),
          "        [… 34 more lines removed]",
          ...[1, 2, 3, 4, 5, 6].map((line) => `    ${line} + TURNLOOP ${line}`),
          "        [… 34 more lines added]",
          expect.stringMatching(/^ {2}\[y\] yes, once/),
        ]);
        asking.type("n");
        await asking.waitFor(/\[exit 0\]/);
      } finally {
        asking.close();
      }
      fixture.server.enqueue(editCall("call_2", "notes.txt", before, after), { text: "edited" });
      const terminal = await fixture.openReady([], { columns: 120, rows: 40 });
      terminal.type("shout it");
      await terminal.waitFor(/\[t\] no, and tell the model why/);
      terminal.type("y");
      await terminal.waitFor(/\bedited\b/);
      await terminal.idle();
      const shown = (await terminal.screen(100)).split("\n").map((line) => line.trimEnd());
      const call = shown.findIndex((line) => /✓ edit notes\.txt/.test(line));
      expect(shown.slice(call + 1, call + 8)).toEqual([
        "  1 - turnloop 1",
        "  2 - turnloop 2",
        "      [… 38 more lines removed]",
        "  1 + TURNLOOP 1",
        "  2 + TURNLOOP 2",
        "      [… 38 more lines added]",
        "",
      ]);
      expect(await readFile(path, "utf8")).toBe(after);
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
