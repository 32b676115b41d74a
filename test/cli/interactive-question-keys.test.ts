import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry } from "../support/mcp/servers.js";
import { interactiveTest } from "./interactive-support.js";

/**
 * The trial of round 3, session 30: a question on the screen left the input box's keys in the
 * status line (`Enter send · Ctrl-J newline · / commands …`), which do nothing there. Every
 * question and picker shows its own keys (status-line.ts), and the input box's Enter while the
 * input box has the keys; while a prompt runs, Esc cancels it, whatever is open.
 */

/**
 * The screen with the seconds of `working Ns` left out (they count on while the test looks), and
 * the status line's gap before the model (as wide as the seconds leave it) as two spaces.
 */
const withoutSeconds = (screen: string) =>
  screenLines(screen).map((row) =>
    row.replace(/^working \d+s/, "working Ns").replace(/ {2,}(?=fake-model · )/, "  "),
  );

const RULE = "─".repeat(100);

describe.skipIf(tmuxMissing())("the status line at a question", () => {
  interactiveTest(
    "a permission question: its keys, then the input box's Enter while a message is typed",
    async ({ fixture }) => {
      fixture.server.enqueue(
        { toolCalls: [{ id: "c1", name: "bash", arguments: JSON.stringify({ command: "ls" }) }] },
        { text: "Listed." },
      );
      const terminal = await fixture.openReady([], { columns: 100, rows: 24 });
      terminal.type("list files");
      const question = [
        "› list files",
        "● bash ls  waiting for your answer",
        "turnloop wants to run ls",
        "    $ ls",
        "",
        "[y] yes, once",
        "[a] yes, always for bash(ls) in this session",
        "[p] yes, always for bash(ls *) in this session",
        "[n] no",
        "[t] no, and tell the model why",
      ];
      const screen = (holder: string[], input: string, status: string) => [
        ...question,
        ...holder,
        RULE,
        input,
        RULE,
        status,
      ];
      const tail = (lines: string[]) => lines.slice(4);
      await terminal.waitForScreen(
        screen(
          [
            "its key or ↑/↓ selects an answer, Enter confirms · Esc cancels the prompt · other keys write a",
            "  message",
          ],
          "",
          "working Ns · y/a/p/n/t or ↑/↓ select · Enter confirms · ...  fake-model · ask · ctx 0% · 10 in 5 out",
        ),
        (shown) => tail(withoutSeconds(shown)),
      );
      terminal.write("hello");
      await terminal.waitForScreen(
        screen(
          [
            "the input box has the keys: send your message (Enter) or clear it to answer here · Esc cancels the",
            "  prompt",
          ],
          " hello",
          "working Ns · Enter sends your message · Esc cancels  fake-model · ask · ctx 0% · 10 in 5 out",
        ),
        (shown) => tail(withoutSeconds(shown)),
      );
      terminal.key("BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
      terminal.write("y");
      await terminal.waitFor(/selected: \[y\] yes, once/);
      terminal.key("Enter");
      await terminal.waitFor(/Listed\./);
      const idle = await terminal.idle();
      expect(withoutSeconds(idle).at(-1)).toBe(
        "Enter send · Ctrl-J newline · / commands · @ file · ! s...  fake-model · ask · ctx 0% · 20 in 10 out",
      );
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );

  interactiveTest(
    "the trust question of a project's servers, asked while no prompt runs: its keys and Esc's no",
    async ({ fixture }) => {
      await writeFile(
        join(fixture.repository, ".mcp.json"),
        JSON.stringify({ mcpServers: { projsrv: stdioEntry() } }),
      );
      const terminal = fixture.open([], { columns: 100, rows: 24 });
      const shown = await terminal.waitFor(/\[y\] yes +\[n\] no/);
      await terminal.waitUntil(
        (screen) => screenLines(screen).at(-1)?.startsWith("y/n or") === true,
        "the question's keys in the status line",
      );
      expect(withoutSeconds(await terminal.screen()).at(-1)).toBe(
        "y/n or ↑/↓ select · Enter confirms · Esc no  fake-model · ask · ctx 0% · 0 in 0 out",
      );
      expect(shown).toMatch(/Trust this project/);
      terminal.key("Escape");
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
