import { readFileSync } from "node:fs";
import { ProcessTerminal, TUI } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { rowState } from "../../src/cli/interactive/scrolled-rows.js";
import { type InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Rows scrolled above the screen are taken out of pi-tui's frames (scrolled-rows.ts, round 3
// session 27): what the terminal shows must not change. After a long conversation (two answers
// of many rows, each streamed in two parts with a gate between them, so that frames are drawn
// while rows are above the screen), the terminal's scrollback and screen are compared with what a
// full redraw at the same width writes (pi-tui clears the terminal and its scrollback and writes
// every row when the width changes: the terminal is made one column wider and back). At two
// widths, and after a resize in the middle of the conversation.

/** Rows of scrollback read: more than the conversation has. */
const HISTORY = 5_000;

/** A Markdown answer of `paragraphs` paragraphs (about 3 rows each at 60 columns), in pieces. */
function answer(name: string, paragraphs: number): string[] {
  return Array.from(
    { length: paragraphs },
    (_, index) =>
      `${index % 5 === 0 ? `## ${name} part ${index}\n\n` : ""}Paragraph ${index} of ${name}, with *emphasis* and \`code\`, long enough to wrap at the width of a narrow terminal.\n\n`,
  ).concat(`The end of ${name}.`);
}

/** The gate of one streamed answer: the first half is sent, the rest once `open` is called. */
function gated(pieces: string[]): { reply: object; open: () => void } {
  let open: () => void = () => undefined;
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  // SSE events before the text: the role's; one per piece after it.
  return {
    reply: { text: pieces, pause: { afterEvents: Math.floor(pieces.length / 2), until } },
    open,
  };
}

/** Asks `prompt`, waits for the first half of `name`'s answer, lets the rest come, waits idle. */
async function conversation(
  terminal: InteractiveTerminal,
  prompt: string,
  name: string,
  open: () => void,
): Promise<void> {
  terminal.type(prompt);
  await terminal.waitFor(new RegExp(`Paragraph 15 of ${name}`));
  open();
  await terminal.waitUntil(
    (shown) => shown.includes(`The end of ${name}.`) && /Enter send · /.test(shown),
    `the end of ${name}, idle`,
  );
}

/** The scrollback and screen once a full redraw at `columns` (the same width) has written them. */
async function redrawn(terminal: InteractiveTerminal, columns: number): Promise<string> {
  const before = await terminal.screen(HISTORY);
  terminal.resize(columns + 1, 30);
  await terminal.waitUntil(
    (shown) => shown.split("\n").some((row) => row.length === columns + 1),
    `the screen drawn at ${columns + 1} columns`,
  );
  terminal.resize(columns, 30);
  // The look that sees it again, else (after 5 s) the last one, for the caller's comparison.
  return terminal
    .waitUntil(
      (shown) => shown === before,
      "the same scrollback and screen after a full redraw",
      5_000,
      HISTORY,
    )
    .catch(() => terminal.screen(HISTORY));
}

describe("pi-tui's row bookkeeping, which scrolled-rows.ts shifts", () => {
  it("is the pinned version's: fields of the shapes scrolled-rows.ts reads", () => {
    const pinned = JSON.parse(readFileSync("package.json", "utf8")).dependencies[
      "@mariozechner/pi-tui"
    ];
    const installed = JSON.parse(
      readFileSync("node_modules/@mariozechner/pi-tui/package.json", "utf8"),
    ).version;
    // Another version: read its dist/tui.js doRender before changing either of these lines.
    expect({ pinned, installed }).toEqual({ pinned: "0.73.1", installed: "0.73.1" });
    expect(rowState(new TUI(new ProcessTerminal()))).toBeDefined();
  });
});

describe.skipIf(tmuxMissing())("turnloop (interactive): rows scrolled above the screen", () => {
  for (const columns of [60, 100]) {
    interactiveTest(
      `a long conversation at ${columns} columns: scrollback and screen as a full redraw writes them`,
      async ({ fixture }) => {
        const first = gated(answer("first", 40));
        const second = gated(answer("second", 40));
        fixture.server.enqueue(first.reply);
        fixture.server.enqueue(second.reply);
        const terminal = await fixture.openReady([], { columns, rows: 30 });
        await conversation(terminal, "write a long answer", "first", first.open);
        await conversation(terminal, "and another", "second", second.open);
        const shown = await terminal.screen(HISTORY);
        expect(shown).toContain("Paragraph 0 of first");
        expect(await redrawn(terminal, columns)).toBe(shown);
      },
      60_000,
    );
  }

  interactiveTest(
    "a resize between two answers: scrollback and screen as a full redraw writes them",
    async ({ fixture }) => {
      const first = gated(answer("first", 40));
      const second = gated(answer("second", 40));
      fixture.server.enqueue(first.reply);
      fixture.server.enqueue(second.reply);
      const terminal = await fixture.openReady([], { columns: 100, rows: 30 });
      await conversation(terminal, "write a long answer", "first", first.open);
      terminal.resize(70, 30);
      await terminal.waitUntil(
        (shown) => shown.split("\n").every((row) => row.length <= 70) && /Enter send/.test(shown),
        "the screen drawn at 70 columns",
      );
      await conversation(terminal, "and another", "second", second.open);
      const shown = await terminal.screen(HISTORY);
      expect(shown).toContain("Paragraph 0 of first");
      expect(await redrawn(terminal, 70)).toBe(shown);
    },
    60_000,
  );
});
