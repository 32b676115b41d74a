import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A question stays within the screen however long the command (trial 47 F5: a 10 KB command
// made a question of about 300 rows; its start and `[y]` scrolled off): the command's start and
// end are shown with the middle cut and counted, the rules on the choices' rows too.

const COMMAND = `echo start; ${"true; ".repeat(1700)}echo end`;

const bashCall = (command: string) => ({
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
});

describe.skipIf(tmuxMissing())("a 10 KB command's question", () => {
  interactiveTest(
    "fits a 30-row screen with its start, its end and every choice",
    async ({ fixture }) => {
      fixture.server.enqueue(bashCall(COMMAND), { text: "done" });
      const terminal = await fixture.openReady([], { columns: 80, rows: 30 });
      terminal.type("go");
      const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
      const rows = question.split("\n").map((row) => row.trimEnd());
      // The whole question from the prompt on, on a 30-row screen: nothing scrolled off.
      const from = rows.indexOf("› go");
      expect(from).toBeGreaterThanOrEqual(0);
      expect(rows.slice(from, rows.indexOf("[t] no, and tell the model why") + 1)).toEqual([
        "› go",
        "● bash echo start; true; true; true; true; true; tru...  waiting for your answer",
        "turnloop wants to run echo start; true; true; true; true; true; true; true;",
        "  true; true; true; true;  … 10,092 characters cut … true; true; true; true;",
        "  true; true; true; echo end",
        "    $ echo start; true; true; true; true; true; true; true; true; true; true;",
        ...Array<string>(3).fill(`      ${"true; ".repeat(11)}true;`),
        "      true; true; true; true; true; tr … 9,740 characters cut … ; true; true;",
        `      ${"true; ".repeat(11)}true;`,
        `      ${"true; ".repeat(11)}echo end`,
        "",
        "[y] yes, once",
        "[a] yes, always for bash(echo start; true; true; true; true; true; true; true;",
        "    true; true; true; true; true; true; true; … 10,076 characters cut … rue;",
        "    true; true; true; true; true; true; echo end) in this session",
        "[p] yes, always for bash(echo start *) in this session (true, true, true,",
        "      true, true, true, true, true, true, true, true, true, true, true … 10,087",
        "      characters cut …",
        "        true, true, true, true, true, echo end still ask)",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("y");
      await terminal.waitFor(/^done/m);
    },
  );

  interactiveTest(
    "-p on a terminal: a 100-line command shows its first 12 and last 6 lines",
    async ({ fixture }) => {
      const lines = Array.from({ length: 100 }, (_, index) => `echo ${index + 1}`);
      fixture.server.enqueue(bashCall(lines.join("\n")), { text: "done" });
      const terminal = fixture.open(["-p", "go"], { columns: 80, rows: 40 });
      const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
      const rows = question.split("\n").map((row) => row.trim());
      const from = rows.indexOf("$ echo 1");
      expect(rows.slice(from, from + 20)).toEqual([
        "$ echo 1",
        ...lines.slice(1, 12).map((line) => `> ${line}`),
        "… 82 lines cut …",
        ...lines.slice(94).map((line) => `> ${line}`),
        "[y] yes, once",
      ]);
    },
  );
});
