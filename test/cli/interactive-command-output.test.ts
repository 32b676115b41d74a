import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial of session 25's build: what `/usage`, `/model`, `/sessions` … printed went into the
// transcript at the left edge, under the model's answer, with nothing to tell them apart. Now a
// command's output is drawn under the command as typed (after a blank row, dim), two columns in.

/** The transcript's rows from the first prompt to the input box, padding trimmed. */
function transcriptRows(screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => row.startsWith("› "));
  const end = rows.findIndex((row, index) => index > start && /^─{20,}$/.test(row));
  return rows.slice(start, end);
}

describe.skipIf(tmuxMissing())("turnloop (interactive): slash-command output", () => {
  interactiveTest(
    "at 100 columns: each command's output under the command as typed, two columns in; an unknown one too",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Hello there.", usage: { input: 1200, output: 34 } });
      const terminal = await fixture.openReady([], { columns: 100, rows: 50 });
      terminal.type("hi");
      await terminal.waitFor(/Hello there\./);
      await terminal.idle();
      terminal.type("/model");
      await terminal.waitFor(/choices: /);
      terminal.type("/mode auto");
      await terminal.waitFor(/mode: auto/);
      terminal.type("/frobnicate");
      const screen = await terminal.waitFor(/unknown command/);
      expect(transcriptRows(screen)).toEqual([
        "› hi",
        "",
        "Hello there.",
        "",
        "/model",
        "  model: openai-compatible:fake-model",
        "  choices: openai-compatible:fake-model",
        "",
        "/mode auto",
        "  mode: auto (commands run in the sandbox and edits inside the workspace without asking)",
        "",
        "/frobnicate",
        "  unknown command /frobnicate; /help lists them",
      ]);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "at 40 columns: /mode's list and /sessions under their commands, continued rows under their text",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Hello there." });
      const terminal = await fixture.openReady([], { columns: 40, rows: 50 });
      terminal.type("hi");
      await terminal.waitFor(/Hello there\./);
      // Idle: the status line's keys again ("Enter send", cut at this width).
      await terminal.waitFor(/^Enter send/m);
      terminal.type("/mode");
      await terminal.waitFor(/autopilot: /);
      terminal.type("/sessions");
      const screen = await terminal.waitFor(/just now/);
      const rows = transcriptRows(screen);
      expect(rows.slice(0, 3)).toEqual(["› hi", "", "Hello there."]);
      expect(rows.slice(3)).toEqual([
        "",
        "/mode",
        "  * ask: reads inside the workspace run",
        "      freely; edits and commands ask",
        "      first",
        "    auto: commands run in the sandbox",
        "      and edits inside the workspace",
        "      without asking",
        "    autopilot: works on its own until",
        "      the task is done; asks as auto",
        "      does",
        "",
        "/sessions",
        expect.stringMatching(/^ {2}\* [0-9a-f]{8} {2}just now {4}hi$/),
      ]);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
