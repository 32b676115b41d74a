import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Bidirectional-text controls (U+202A–U+202E, U+2066–U+2069) in text turnloop draws are shown as
// their code points, so that a terminal that reorders text cannot make a command, its output or a
// reply read differently from what runs ("Trojan Source", CVE-2021-42574); the model and the files
// get them as they are (README, "Text from elsewhere on your terminal").

/** The Trojan Source paper's line: reordered, it reads `"user" // admin`, yet the string is longer. */
const TROJAN_LINE = 'access != "user\u202e \u2066// admin\u2069 \u2066"';
const TROJAN_SHOWN = 'access != "user⟨U+202E⟩ ⟨U+2066⟩// admin⟨U+2069⟩ ⟨U+2066⟩"';
const COMMAND = `printf '%s\\n' '${TROJAN_LINE}' > trojan.txt; cat trojan.txt`;
const COMMAND_SHOWN = `printf '%s\\n' '${TROJAN_SHOWN}' > trojan.txt; cat trojan.txt`;
const REPLY = `reply: \u202dLTR\u202c \u202aembed\u202c \u202bRTL\u202c \u2067isolate\u2069 \u2068first\u2069`;
const REPLY_SHOWN =
  "reply: ⟨U+202D⟩LTR⟨U+202C⟩ ⟨U+202A⟩embed⟨U+202C⟩ ⟨U+202B⟩RTL⟨U+202C⟩ ⟨U+2067⟩isolate⟨U+2069⟩ ⟨U+2068⟩first⟨U+2069⟩";

const bashCall = (command: string) => ({
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
});

describe.skipIf(tmuxMissing())("bidirectional-text controls on the terminal", () => {
  interactiveTest(
    "the interactive screen shows them as code points, in the question too; the model and the file get them as they are",
    async ({ fixture }) => {
      fixture.server.enqueue(bashCall(COMMAND), { text: REPLY });
      const terminal = await fixture.openReady([], { columns: 140, rows: 30 });
      terminal.type("trojan");
      const question = await terminal.waitFor(/\[t\] no, and tell the model why/);
      const rows = question.split("\n").map((row) => row.trimEnd());
      expect(rows).toContain(`turnloop wants to run ${COMMAND_SHOWN}`);
      expect(rows).toContain(`    $ ${COMMAND_SHOWN}`);
      expect(question).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      terminal.type("y");
      const screen = await terminal.waitFor(/^reply: /m);
      const lines = screen
        .split("\n")
        .map((line) => line.trimEnd().replace(/ [\d.]+ (?:ms|s|min)$/, " Ns"));
      const from = lines.indexOf("› trojan");
      expect(lines.slice(from, from + 5)).toEqual([
        "› trojan",
        `✓ bash ${COMMAND_SHOWN}  Ns`,
        `  ${TROJAN_SHOWN}`,
        "",
        REPLY_SHOWN,
      ]);
      expect(screen).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(fixture.lastMessage(1)).toContain(TROJAN_LINE);
      expect(fixture.lastMessage(1)).not.toContain("⟨U+");
      const file = await readFile(join(fixture.repository, "trojan.txt"), "utf8");
      expect(file).toBe(`${TROJAN_LINE}\n`);
    },
  );

  interactiveTest("-p on a terminal: the answer shows them as code points", async ({ fixture }) => {
    fixture.server.enqueue({ text: REPLY });
    const terminal = fixture.open(["-p", "go"], { columns: 140 });
    const screen = await terminal.waitFor(/\[exit 0\]/);
    expect(screen.split("\n").map((line) => line.trimEnd())).toContain(REPLY_SHOWN);
  });
});

/**
 * The implicit marks LRM, RLM, ALM (they reorder the neutral characters next to them) and
 * characters that draw nothing and so hide text inside a word: zero width space, soft hyphen,
 * word joiner, byte order mark, tag characters (events/errors.ts `HIDING_CHARACTER`).
 */
const HIDDEN =
  "marks: 1\u200e-2\u200f-3\u061c-4 hidden: r\u200bm r\u00adm r\u2060m r\ufeffm t\u{e0041}\u{e0042}";
const HIDDEN_SHOWN =
  "marks: 1⟨U+200E⟩-2⟨U+200F⟩-3⟨U+061C⟩-4 hidden: r⟨U+200B⟩m r⟨U+00AD⟩m r⟨U+2060⟩m r⟨U+FEFF⟩m t⟨U+E0041⟩⟨U+E0042⟩";

describe.skipIf(tmuxMissing())("marks and invisible characters on the terminal", () => {
  interactiveTest(
    "-p on a terminal: the answer's marks and hidden characters show as code points",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: HIDDEN });
      const terminal = fixture.open(["-p", "go"], { columns: 140 });
      const screen = await terminal.waitFor(/\[exit 0\]/);
      expect(screen.split("\n").map((line) => line.trimEnd())).toContain(HIDDEN_SHOWN);
    },
  );

  interactiveTest(
    "the trust question shows a project server's command with its controls as code points, the same marks as the rest",
    async ({ fixture }) => {
      await writeFile(
        join(fixture.repository, ".mcp.json"),
        JSON.stringify({
          mcpServers: { "s\u202eq": { command: "run\u200f", args: ["\u001b[2Jx"] } },
        }),
      );
      const terminal = fixture.open([], { columns: 140 });
      const question = await terminal.waitFor(/\[y\] yes +\[n\] no/);
      const rows = question.split("\n").map((row) => row.trim());
      expect(rows).toContain("s⟨U+202E⟩q: 'run⟨U+200F⟩' '⟨U+001B⟩[2Jx'");
      terminal.type("n");
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});

test("-p to a pipe: the answer keeps them, as the model sent it", async ({ cli, model }) => {
  model.enqueue({ text: REPLY });
  const result = await cli(["-p", "go"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`${REPLY}\n`);
});
