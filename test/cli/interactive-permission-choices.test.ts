import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { fakeNpx, interactiveTest } from "./interactive-support.js";

// Trial of session 25's build: at narrow widths the choices of a permission question were packed
// into rows as they fitted, so `[n] no   [t] no, and tell …` shared a row while `[y]` had one of
// its own, and a long rule's rows went on at the left edge, under the keys. Now: one row when
// every choice fits on it (test/cli/text-wrap.test.ts), otherwise one choice per row, continued
// under its text.

const JAPANESE = "日本語のテキスト";

/** The screen's rows from the question's headline to the last choice, padding trimmed. */
function questionRows(screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => row.startsWith("turnloop wants to run"));
  const end = rows.findIndex((row) => row.includes("[t] no, and tell the model why"));
  return rows.slice(start, end + 1);
}

/** The rows of the choices only: from `[y]` to `[t]`. */
function choiceRows(screen: string): string[] {
  const rows = questionRows(screen);
  return rows.slice(rows.findIndex((row) => row.startsWith("[y]")));
}

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

describe.skipIf(tmuxMissing())("turnloop (interactive): permission choices at any width", () => {
  interactiveTest(
    "a CJK command at 40 columns: one choice per row, the long rule under its text; y answers",
    async ({ fixture }) => {
      fixture.server.enqueue(bash("call_1", `echo ${JAPANESE.repeat(3)}`), { text: "echoed" });
      const terminal = await fixture.openReady([], { columns: 40, rows: 40 });
      terminal.type("wide");
      const screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(choiceRows(screen)).toEqual([
        "[y] yes, once",
        "[a] yes, always for bash(echo",
        `    ${JAPANESE}${JAPANESE}日本`,
        "    語のテキスト) in this session",
        "[p] yes, always for bash(echo *) in this",
        "    session",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("y");
      await terminal.waitFor(/echoed/);
      expect(await terminal.screen()).toMatch(/✓ bash echo 日本語/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "a long piped command at 60 columns: one choice per row; p answers with the prefix rule",
    async ({ fixture }) => {
      const command = "npx tape test/alpha.js test/beta.js | tail -5";
      fixture.server.enqueue(bash("call_1", command), { text: "ran the tests" });
      const env = await fakeNpx(fixture);
      const terminal = await fixture.openReady([], { columns: 60, rows: 40, env });
      terminal.type("test");
      const screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(choiceRows(screen)).toEqual([
        "[y] yes, once",
        "[a] yes, always for bash(npx tape test/alpha.js test/beta.js",
        "    | tail -5) in this session",
        "[p] yes, always for bash(npx tape *) in this session (tail",
        "    -5 still asks)",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("p");
      await terminal.waitFor(/ran the tests/);
      expect(await terminal.screen()).toMatch(
        /always allowed in this session: bash\(npx tape \*\)/,
      );
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "at 100 columns, choices that do not fit on one row take a row each; n and Ctrl-C answer",
    async ({ fixture }) => {
      fixture.server.enqueue(
        bash("call_1", "git log --oneline"),
        { text: "not logged" },
        bash("call_2", `echo ${JAPANESE.repeat(6)}`),
        { text: "never said" },
      );
      const terminal = await fixture.openReady([], { columns: 100, rows: 40 });
      terminal.type("log");
      let screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(choiceRows(screen)).toEqual([
        "[y] yes, once",
        "[a] yes, always for bash(git log --oneline) in this session",
        "[p] yes, always for bash(git log *) in this session",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      terminal.type("n");
      await terminal.waitFor(/not logged/);
      await terminal.idle();

      terminal.type("echo");
      screen = await terminal.waitFor(/\[t\] no, and tell the model why/);
      expect(choiceRows(screen)).toEqual([
        "[y] yes, once",
        "[a] yes, always for bash(echo",
        // A word wider than the row is cut at its edge (between graphemes), then goes on.
        `    ${JAPANESE.repeat(6)}`,
        "    ) in this session",
        "[p] yes, always for bash(echo *) in this session",
        "[n] no",
        "[t] no, and tell the model why",
      ]);
      // Ctrl-C at the question cancels the prompt: the call is not run, the session stays open.
      terminal.key("C-c");
      await terminal.waitFor(/cancelled/);
      expect(await terminal.screen()).not.toMatch(/\[y\] yes/);
      expect(fixture.server.requests).toHaveLength(3);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
