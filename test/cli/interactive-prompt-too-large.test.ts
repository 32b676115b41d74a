import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ANSWER_TURN } from "../support/event-sequences.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { exitWithCtrlD, interactiveTest, shownRows } from "./interactive-support.js";

// The interactive terminal with a prompt beyond the model's known context window (an attached
// 100 KB log, about 25,000 tokens, against 8,000): the refusal is shown above the input box, the
// prompt stays in the box as typed, to edit and send again; nothing is sent, nothing of it is
// stored (session 32's refusal emptied the box and showed nothing).

describe.skipIf(tmuxMissing())("turnloop (interactive): a prompt too large for the model", () => {
  interactiveTest(
    "the refusal shows above the box, the prompt stays in it to edit; the edited prompt is sent, the refused one never stored",
    async ({ fixture }) => {
      await writeFile(join(fixture.repository, "big.log"), "log line\n".repeat(11_000));
      fixture.server.enqueue({ text: "Short answer." });
      const terminal = await fixture.openReady(["--context-window", "8000"], { columns: 200 });
      // One write, Enter with the text: typed as two, the `@` menu's suggestions could arrive between
      // them, and Enter then took the menu's choice instead of sending (src/cli/interactive/
      // completion.ts); in one write the menu is stale when Enter is read, and Enter sends.
      terminal.write("explain @big.log\r");
      // The refusal with the box under it: the typed text alone is in the box before Enter is read.
      const screen = await terminal.waitFor(
        /turnloop\.\n[\s\S]*─{20,}\n *explain @big\.log *\n─{20,}/,
      );
      // The whole screen: the refusal above the box, the prompt in it as typed, no line of a prompt
      // that ran (no `› explain …`), nothing sent.
      const rows = shownRows(screen.replace(/about \d+ tokens/, "about N tokens"), fixture);
      expect(rows).toEqual([
        "turnloop in <repository>",
        "model openai-compatible:fake-model · session <id> · /help lists the commands",
        "error: the prompt is about N tokens with the system prompt and tools (99048 characters), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent. Send a smaller",
        "part of it or fewer files, use a model with a larger window (/model), or, if openai-compatible:fake-model's window is larger, set it with --context-window or TURNLOOP_CONTEXT_WINDOW when starting",
        "turnloop.",
        "───",
        " explain @big.log",
        "───",
        expect.stringMatching(/^Enter send · .* · ctx 0% · 0 in 0 out$/),
      ]);
      expect(fixture.server.requests).toHaveLength(0);

      // The box holds the prompt to edit: cut the attachment off and send the rest.
      terminal.key(...Array.from({ length: " @big.log".length }, () => "BSpace"));
      await terminal.waitFor(/─{20,}\n *explain *\n─{20,}/);
      terminal.key("Enter");
      await terminal.waitFor(/Short answer\./);
      await terminal.idle();
      expect(fixture.server.requests).toHaveLength(1);
      expect(fixture.lastMessage(0)).toBe("explain");
      const sessionId = await exitWithCtrlD(terminal);
      expect(await fixture.eventTypes(sessionId)).toEqual([
        "session.start",
        "user.message",
        ...ANSWER_TURN,
      ]);
    },
  );

  interactiveTest(
    "a window the system prompt and tools alone fill (trial 45 F1): refused the same way, saying so; the prompt stays in the box",
    async ({ fixture }) => {
      const terminal = await fixture.openReady(["--context-window", "1000"], { columns: 200 });
      terminal.type("hello");
      const screen = await terminal.waitFor(/or tools\.\n[\s\S]*─{20,}\n *hello *\n─{20,}/);
      const rows = shownRows(screen.replace(/about \d+ tokens/, "about N tokens"), fixture);
      expect(rows).toEqual([
        "turnloop in <repository>",
        "model openai-compatible:fake-model · session <id> · /help lists the commands",
        "error: the system prompt and the 7 tool definitions alone take about N tokens, more than the context window of openai-compatible:fake-model, 1000 tokens, before any prompt; nothing was sent. If",
        "openai-compatible:fake-model's window is larger, set it with --context-window or TURNLOOP_CONTEXT_WINDOW when starting turnloop; else use a model with a larger window (/model), or configure fewer MCP",
        "servers or tools.",
        "───",
        " hello",
        "───",
        expect.stringMatching(/^Enter send · .* · ctx 0% · 0 in 0 out$/),
      ]);
      expect(fixture.server.requests).toHaveLength(0);
    },
  );
});
