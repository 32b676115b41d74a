import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

/**
 * A reopened session is drawn in the order of its log (lane status, round 3 session 36; a trial
 * of session 35 saw it): a warning recorded between a reply and the start of the call it asked
 * for (the server cut the prompt: compaction-guard.ts, said once the reply is in) was drawn
 * under the call's line and output, while `-p` said it before the call, as the log has it.
 */
describe.skipIf(tmuxMissing())("a reopened session on the full screen", () => {
  interactiveTest(
    "draws a warning the log has before a call's start above the call",
    async ({ fixture }) => {
      const command = JSON.stringify({ command: "echo hi" });
      fixture.server.enqueue(
        {
          text: "Let me look.",
          toolCalls: [{ id: "call_1", name: "bash", arguments: command }],
          usage: { input: 100, output: 5 },
        },
        { text: "Done.", usage: { input: 100, output: 5 } },
      );
      // About 9,000 tokens sent, 100 counted: the server cut the prompt.
      const prompt = `summarize\n${"some pasted log line\n".repeat(1_500)}`;
      const result = await runCli(["-p", prompt, "--allow-all-tools"], {
        cwd: fixture.repository,
        env: fixture.environment(),
      });
      expect(result.code, result.stderr).toBe(0);
      const sessionId = printedSessionId(result.stderr);
      const types = await fixture.eventTypes(sessionId);
      expect(
        types.slice(types.indexOf("assistant.message"), types.indexOf("assistant.turn_end")),
      ).toEqual([
        "assistant.message",
        "assistant.usage",
        "session.warning",
        "tool.execution_start",
        "tool.execution_complete",
      ]);
      expect(
        result.stderr.split("\n").map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(<ms>)")),
      ).toEqual([
        "Let me look.",
        expect.stringMatching(/^turnloop: warning: The server counted 100 prompt tokens /),
        "✓ bash echo hi (<ms>)",
        expect.stringMatching(/^2 turns · /),
        "",
      ]);

      const reopened = fixture.open(["--resume", sessionId], { columns: 100, rows: 40 });
      await reopened.waitFor(/Done\./);
      const rows = screenLines(await reopened.screen());
      const from = rows.indexOf("Let me look.");
      expect(
        rows
          .slice(from, rows.indexOf("Done.") + 1)
          // The request's estimate follows the tools' descriptions: not this test's subject.
          .map((row) =>
            row.replace(/[\d.]+ (?:ms|s|min)$/, "<time>").replace(/about \d+:/, "about N:"),
          ),
      ).toEqual([
        "Let me look.",
        "warning: The server counted 100 prompt tokens for a request of about N: it probably cut the",
        "prompt to fit its own context size, dropping the start (system prompt, tools, early messages). Raise",
        "the server's context size (Ollama: OLLAMA_CONTEXT_LENGTH or a Modelfile's num_ctx) and tell turnloop",
        "with --context-window or TURNLOOP_CONTEXT_WINDOW.",
        "✓ bash echo hi  <time>",
        "  hi",
        "",
        "Done.",
      ]);
      reopened.key("C-d");
      expect((await reopened.exited()).code).toBe(0);
    },
  );
});
