import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

const LONG = "const greeting = 'a line long enough to pass fifty columns on its own';";

function edit(id: string, oldText: string, newText: string) {
  return {
    toolCalls: [
      {
        id,
        name: "edit",
        arguments: JSON.stringify({ path: "app.js", old_str: oldText, new_str: newText }),
      },
    ],
  };
}

describe.skipIf(tmuxMissing())("turnloop (interactive): what a permission question shows", () => {
  interactiveTest(
    "at 50 columns an edit's diff is minimal and wrapped, not cut; a cancel at the question says the tool never ran",
    async ({ fixture }) => {
      await writeFile(join(fixture.repository, "app.js"), `first();\n${LONG}\nlast();\n`);
      fixture.server.enqueue(
        edit(
          "call_1",
          `first();\n${LONG}\nlast();`,
          `first();\n${LONG.replace("'a", "'the")}\nlast();`,
        ),
        { text: "not edited" },
      );
      const terminal = await fixture.openReady([], { columns: 50, rows: 30 });
      terminal.type("change it");
      const screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      const rows = screen.split("\n").map((line) => line.trimEnd());
      const diff = rows.slice(
        rows.indexOf("    1   first();"),
        rows.indexOf("    3   last();") + 1,
      );
      // The unchanged first and last lines are context, not removed and re-added; each row has
      // its line in the file (trial 40 F13); the changed line wraps under its text, clear of
      // its line number and marker (session 41: it continued under the number).
      expect(diff).toEqual([
        "    1   first();",
        "    2 - const greeting = 'a line long enough to",
        "        pass fifty columns on its own';",
        "    2 + const greeting = 'the line long enough to",
        "        pass fifty columns on its own';",
        "    3   last();",
      ]);
      for (const line of screen.split("\n")) {
        expect(line).not.toMatch(/…$/);
      }
      terminal.key("Escape");
      await terminal.waitFor(
        /edit app\.js\s+interrupted\s*\n\s+Not run: the prompt was cancelled before/,
      );
      expect(await terminal.screen(200)).not.toMatch(/partly run/);
      expect(await readFile(join(fixture.repository, "app.js"), "utf8")).toBe(
        `first();\n${LONG}\nlast();\n`,
      );
      terminal.key("C-d");
      await terminal.exited();
      const events = await fixture.events(printedSessionId(await terminal.screen(500)));
      const completed = events.find((event) => event.type === "tool.execution_complete");
      expect(completed?.data).toMatchObject({
        success: false,
        error: { message: "Not run: the prompt was cancelled before the tool call started." },
      });
    },
  );
});

// A user's trial: an edit that only adds lines was previewed, once done, as its old text removed
// and its whole new text added; the question's diff was minimal. Both now show the one diff.
describe.skipIf(tmuxMissing())("turnloop (interactive): an edit that only adds lines", () => {
  interactiveTest(
    "the finished call shows the same minimal diff as its question: the kept line is context",
    async ({ fixture }) => {
      await writeFile(join(fixture.repository, "app.js"), "first();\nlast();\n");
      fixture.server.enqueue(edit("call_1", "first();\n", "first();\nsecond();\n"), {
        text: "edited",
      });
      const terminal = await fixture.openReady([], { columns: 80, rows: 30 });
      terminal.type("add a line");
      const question = (await terminal.waitFor(/\[t\] no, and tell the model why/))
        .split("\n")
        .map((line) => line.trimEnd());
      const asked = question.indexOf("    1   first();");
      expect(question.slice(asked, asked + 4)).toEqual([
        "    1   first();",
        "    2 + second();",
        "    3   last();",
        "",
      ]);
      terminal.type("y");
      await terminal.waitFor(/\bedited\b/);
      await terminal.idle();
      const rows = (await terminal.screen(100)).split("\n").map((line) => line.trimEnd());
      const call = rows.findIndex((line) => /✓ edit app\.js/.test(line));
      expect(rows.slice(call + 1, call + 5)).toEqual([
        "  1   first();",
        "  2 + second();",
        "  3   last();",
        "",
      ]);
      expect(await readFile(join(fixture.repository, "app.js"), "utf8")).toBe(
        "first();\nsecond();\nlast();\n",
      );
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});

// A fresh user's trial: the plain-line face (stdin a pipe) asked "turnloop wants to Run …" with
// "[y] yes  [a] yes, always for bash(…)", the full screen "[y] yes   [n] no …" then "[a] yes, and
// always for … in this session". Both now take headline and answers from one place
// (permission-preview.ts, permission-answers.ts), as -p on a terminal does; each lays them out at
// its width (the pipe has none: one row, then the answer's `> `).
describe.skipIf(tmuxMissing())("a permission question's words", () => {
  interactiveTest(
    "are the same on the full screen and in the plain-line face",
    async ({ fixture }) => {
      const command = "npx tape 'test/*.js' | tail -5";
      const call = {
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
      };
      const headline = `turnloop wants to run ${command}`;
      const question = [
        headline,
        `    $ ${command}`,
        "",
        // The exact call's rule escapes its star (trial finding 14).
        `[y] yes, once   [a] yes, always for bash(${command.replace("*", "\\*")}) in this session   ` +
          "[p] yes, always for bash(npx tape *) in this session (tail -5 still asks)   [n] no   " +
          "[t] no, and tell the model why",
      ];
      fixture.server.enqueue(call, { text: "not run" });
      const piped = await runCli([], {
        cwd: fixture.repository,
        env: fixture.environment(),
        stdin: "run the tests\nn\n",
      });
      expect(
        piped.stdout
          .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
          .split("\n")
          .slice(2),
      ).toEqual([
        `> ${headline}`,
        question[1],
        // The refusal is said once, by the call's line (it was also "permission denied: …").
        `${question[3]} > ✗ bash ${command} denied (N ms): Permission denied for 'bash': the user said no`,
        "not run",
        "> ",
        `session ${printedSessionId(piped.stdout)}`,
        "",
      ]);
      fixture.server.enqueue(call, { text: "not run" });
      const terminal = await fixture.openReady([], { columns: 220 });
      terminal.type("run the tests");
      const screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      const rows = screen.split("\n").map((row) => row.trimEnd());
      const top = rows.indexOf(headline);
      expect(rows.slice(top, top + 4)).toEqual(question);
      terminal.type("n");
      await terminal.waitFor(/not run/);
    },
  );
});
