import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { stdioEntry } from "../support/mcp/servers.js";
import { interactiveTest } from "./interactive-support.js";

// The first trial: the "always allowed in this session" line came after the command's output,
// as if the answer had been given after the command ran. It belongs right after the answer,
// before what the tool did: it is now drawn under the call's line, above its output or diff,
// for every "always" answer (a shell command, an edit, an MCP tool).

/** The rows from the call's line (`✓ <tool>`) down to the next blank row, right ends trimmed. */
function callRows(screen: string, tool: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => row.startsWith(`✓ ${tool} `));
  if (start === -1) {
    return [];
  }
  const end = rows.findIndex((row, index) => index > start && row === "");
  return rows.slice(start, end);
}

describe.skipIf(tmuxMissing())("turnloop (interactive): an 'always' answer's line", () => {
  interactiveTest(
    "comes right after the answer, before the output: shell, edit, MCP",
    async ({ fixture }) => {
      await writeFile(
        join(fixture.home, "config.json"),
        JSON.stringify({ mcpServers: { t: stdioEntry() } }),
      );
      const call = (id: string, name: string, input: object) => ({
        toolCalls: [{ id, name, arguments: JSON.stringify(input) }],
      });
      fixture.server.enqueue(
        call("call_1", "bash", { command: "printf 'one\\ntwo\\n'" }),
        { text: "Ran." },
        call("call_2", "edit", { path: "notes.md", old_str: "Tuesday", new_str: "Friday" }),
        { text: "Edited." },
        call("call_3", "t__echo", { text: "hi" }),
        { text: "Echoed." },
      );
      const terminal = await fixture.openReady([], { columns: 120 });
      for (const [prompt, answer] of [
        ["run it", "Ran."],
        ["edit it", "Edited."],
        ["echo it", "Echoed."],
      ] as const) {
        await terminal.idle();
        terminal.type(prompt);
        await terminal.waitFor(/\[a\] yes, always/);
        terminal.type("a");
        await terminal.waitFor(new RegExp(`^${answer}`, "m"));
      }
      await terminal.idle();
      const screen = await terminal.screen(200);
      expect(callRows(screen, "bash")).toEqual([
        expect.stringMatching(/^✓ bash printf 'one\\ntwo\\n' {2}[\d.]+ (?:ms|s|min)$/),
        "  always allowed in this session: bash(printf 'one\\\\ntwo\\\\n')",
        "  one",
        "  two",
      ]);
      expect(callRows(screen, "edit")).toEqual([
        expect.stringMatching(/^✓ edit notes\.md {2}[\d.]+ (?:ms|s|min)$/),
        "  always allowed in this session: edit(notes.md)",
        "  1   # notes",
        "  2 - The launch is on Tuesday.",
        "  2 + The launch is on Friday.",
      ]);
      expect(callRows(screen, "t__echo")).toEqual([
        expect.stringMatching(/^✓ t__echo text=hi {2}[\d.]+ (?:ms|s|min) · 1 line$/),
        '  always allowed in this session: mcp("t":"echo")',
      ]);
      expect(screen).not.toMatch(/^always allowed/m);
    },
  );
});
