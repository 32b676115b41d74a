import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { SCREEN_ERRORS_FILE } from "../../src/cli/interactive/screen.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { type InteractiveFixture, interactiveTest, pastSession } from "./interactive-support.js";

// Trial of session 24's build (round 3, session 25, findings 1–3): wide text (CJK, emoji joined
// by ZWJ, Arabic) in a session's first prompt crashed `/sessions`, and in a command the
// permission question (rows cut by characters, not display columns: "Rendered line 2 exceeds
// terminal width (161 > 100)"); each crash wrote the screen to ~/.pi/agent/pi-crash.log, and a
// `create` preview showed a space inside a word. Each view is drawn at 40 and 100 columns; a row
// any view made wider than the terminal would be cut by the screen's safety net and recorded in
// $TURNLOOP_HOME/screen-errors.log (screen.ts, GuardedTUI): that file must not exist either.

const JAPANESE = "日本語のテキスト";
const MIXED = `${JAPANESE.repeat(3)} 👩‍👩‍👧‍👦 مرحبا بالعالم e\u0301té ${JAPANESE.repeat(4)}`;

/** The screen without the spaces that pad each row. */
function trimmed(screen: string): string {
  return screen
    .split("\n")
    .map((row) => row.trimEnd())
    .join("\n");
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** No view made a row wider than the terminal, and pi-tui wrote no crash file (HOME is the fixture's). */
async function expectNoOverflow(fixture: InteractiveFixture): Promise<void> {
  const record = join(fixture.home, SCREEN_ERRORS_FILE);
  expect((await exists(record)) ? await readFile(record, "utf8") : "no record of a cut row").toBe(
    "no record of a cut row",
  );
  expect(await exists(join(fixture.home, ".pi", "agent", "pi-crash.log"))).toBe(false);
}

describe.skipIf(tmuxMissing())("turnloop (interactive): wide text at any width", () => {
  // One session a width: /sessions lists the past session, then a prompt's command asks.
  for (const columns of [40, 100]) {
    interactiveTest(
      `/sessions lists a session whose first prompt is wide text; a permission question for a command in wide text, then its outcome; at ${columns} columns`,
      async ({ fixture }) => {
        const past = await pastSession(fixture, `Japanese ${MIXED}`, "ok");
        const command = `echo ${JAPANESE.repeat(25)}`;
        fixture.server.enqueue(
          { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
          { text: `${MIXED} done` },
        );
        const terminal = await fixture.openReady([], { columns });
        terminal.type("/sessions");
        const listed = trimmed(await terminal.waitFor(new RegExp(past.slice(0, 8))));
        expect(listed).toContain(past.slice(0, 8));
        expect(listed).toContain("Japanese");
        await terminal.waitFor(/Enter send/);
        terminal.type("wide command");
        const question = trimmed(await terminal.waitFor(/\[t\]/));
        expect(question).toContain("[a] yes, always for bash(echo");
        terminal.type("y");
        const answered = trimmed(await terminal.waitFor(/done/));
        expect(answered).toMatch(/✓ bash echo 日本語/);
        await terminal.waitFor(/Enter send/);
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
        await expectNoOverflow(fixture);
      },
    );
  }

  interactiveTest(
    "a create preview in wide text continues its words without a space in them",
    async ({ fixture }) => {
      const text = JAPANESE.repeat(12);
      fixture.server.enqueue(
        {
          toolCalls: [
            {
              id: "call_1",
              name: "create",
              arguments: JSON.stringify({ path: "wide.txt", file_text: `${text}\n` }),
            },
          ],
        },
        { text: "created" },
      );
      const terminal = await fixture.openReady([], { columns: 40 });
      terminal.type("create it");
      const question = trimmed(await terminal.waitFor(/\[n\] no/));
      // The preview's rows, joined, are the file's line: no space was put into it.
      const rows = question
        .split("\n")
        .filter((row) => /[日本語のテキスト]/.test(row) && !row.includes("wide.txt"))
        .map((row) => row.replace(/^ *(\+ )?/, ""));
      expect(rows.join("")).toBe(text);
      terminal.type("n");
      // The status line's keys again (at 40 columns it is cut after them: no `idle()`).
      await terminal.waitFor(/denied[\s\S]*Enter send/);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      await expectNoOverflow(fixture);
    },
  );
});
