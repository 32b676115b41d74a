import { describe, expect } from "vitest";
import { USAGE } from "../../src/cli/usage.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Lists and choices wrap on word boundaries at the terminal's width, continuation rows under the
// text they continue (src/cli/text-wrap.ts), in real 80-column terminals (tmux). A row the
// terminal wrapped itself would be captured joined (tmux capture-pane -J), wider than 80.

const COLUMNS = 80;

/** The rows of `screen` from the one matching `first` to the one matching `last`. */
function rowsBetween(screen: string, first: RegExp, last: RegExp): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => first.test(row));
  const end = rows.findIndex((row, index) => index >= start && last.test(row));
  return rows.slice(start, end + 1);
}

describe.skipIf(tmuxMissing())("wrapping at 80 columns", () => {
  interactiveTest("/help and /mode: descriptions wrap under themselves", async ({ fixture }) => {
    const terminal = await fixture.openReady([], { rows: 50, columns: COLUMNS });
    terminal.type("/help");
    await terminal.waitFor(/\/exit, \/quit\s+Close the session and quit/);
    terminal.type("/mode");
    await terminal.waitFor(/autopilot: works/);
    // Each list under its command, two columns in (interactive/command-output.ts); waited for
    // whole (interactive-terminal.ts `waitForScreen`).
    const help = "                                               ";
    const lists = (screen: string) => rowsBetween(screen, /^ {2}\/help /, /^ {4}autopilot: /);
    await terminal.waitForScreen(
      [
        "  /help                                        List the commands",
        "  /model [provider:model]                      Show the model, or switch to",
        `${help}another one for the next prompts`,
        "  /mode [ask | auto | autopilot]               Show the mode, or switch: ask,",
        `${help}auto or autopilot`,
        "  /usage                                       Tokens and cost of this session",
        `${help}so far`,
        "  /sessions                                    List the sessions of this folder,",
        `${help}newest first`,
        "  /compact [what the summary should focus on]  Summarise the older conversation",
        `${help}to free context; recent turns`,
        `${help}stay as they are`,
        "  /mcp                                         The session's MCP servers: state",
        `${help}and tool count`,
        "  /permissions [remove N | save]               The permission rules in force and",
        `${help}where each comes from; remove or`,
        `${help}save grants`,
        "  /new, /clear                                 Start a new session in this",
        `${help}folder`,
        "  /resume [session id or prefix]               Reopen a session of this folder",
        `${help}(a picker without an id)`,
        "  /exit, /quit                                 Close the session and quit",
        "",
        "/mode",
        "  * ask: reads inside the workspace run freely; edits and commands ask first",
        "    auto: commands run in the sandbox and edits inside the workspace without",
        "      asking",
        "    autopilot: works on its own until the task is done; asks as auto does",
      ],
      lists,
    );
  });

  interactiveTest("-p: the permission choices, each whole on its row", async ({ fixture }) => {
    const command = "npx tape 'test/*.js' | tail -5";
    fixture.server.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    const terminal = fixture.open(["-p", "test it"], {
      columns: COLUMNS,
      env: { NO_COLOR: "1" },
    });
    await terminal.waitFor(/no, and tell the model why\n>$/);
    const question = (screen: string) => rowsBetween(screen, /^turnloop wants to/, /^>$/);
    await terminal.waitForScreen(
      [
        `turnloop wants to run ${command}`,
        `    $ ${command}`,
        "  [y] yes, once",
        // The exact call's rule escapes its star (trial finding 14).
        `  [a] yes, always for bash(${command.replace("*", "\\*")}) in this session`,
        "  [p] yes, always for bash(npx tape *) in this session (tail -5 still asks)",
        "  [n] no",
        "  [t] no, and tell the model why",
        ">",
      ],
      question,
    );
  });

  interactiveTest(
    "--help: every row fits, no word is split, every word is kept in order",
    async ({ fixture }) => {
      const terminal = fixture.open(["--help"], { columns: COLUMNS, rows: 120 });
      const screen = await terminal.waitFor(/\[exit 0\]/, 15_000, 200);
      const rows = rowsBetween(screen, /^turnloop: an open/, /with --store\.$/);
      expect(rows.filter((row) => row.length > COLUMNS)).toEqual([]);
      expect(rows.join("\n").split(/\s+/)).toEqual(USAGE.split(/\s+/));
      // A description continues at its column (38), under the term's description.
      const continued = rows.filter((row) => /^ {3}/.test(row));
      expect(continued.filter((row) => !/^ {38}\S/.test(row))).toEqual([]);
    },
  );
});
