import { describe, expect } from "vitest";
import { gate } from "../support/gate.js";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "bash", arguments: JSON.stringify({ command }) }],
});

/** A summary long enough that the compaction shrinks the context (src/agent/compaction.ts). */
const SUMMARY = `Summary. ${"long ".repeat(50)}`;

/**
 * A session reopened looks as it did live, line for line: the transcript draws the log's events
 * through one path (transcript.ts), and what the face drew from what was typed (a `!command`'s
 * `$` block, a prompt's `attached …` line, a `/compact`'s heading) is drawn from the log as it was
 * (the trial of round 3, session 30: the reopened screen lost the `attached NOTES.md` line and
 * told the `!command` in other words).
 *
 * Only live by nature, so left out of this session: what the log does not hold — the answers of
 * slash commands other than `/compact` (`/help`, `/usage`, `/mode` …), a `/compact` refused with
 * nothing to compact, an `@file` not attached (too big, not text), the status line's one-off
 * hints — and what a finished prompt no longer shows live either: a permission question (gone
 * once answered), a command's running output (replaced by its outcome), a reply's streaming.
 */
describe.skipIf(tmuxMissing())("a reopened session on the full screen", () => {
  interactiveTest(
    "equals the live screen: a !command, an @file prompt, a tool call with output, a denied call, an error, a cancelled turn, a /compact",
    async ({ fixture }) => {
      fixture.server.enqueue(
        bash("call_1", "echo tool-out"),
        { text: "Printed." },
        bash("call_2", "rm notes.md"),
        { text: "Not deleted." },
        { status: 500, body: { error: { message: "boom" } } },
        // Held after its first words until the cancel closes the connection.
        { text: ["Starting", " slowly"], pause: { afterEvents: 2, until: gate().opened } },
        { text: SUMMARY },
      );
      const size = { columns: 100, rows: 40 };
      const live = await fixture.openReady([], size);
      live.type("!echo hello");
      await live.waitFor(/exit 0 · the output goes to the model/);
      await live.idle();
      // Completed with Tab, as a user does: an Enter while the file list is open would take it.
      live.write("summarize @note");
      live.key("Tab");
      await live.waitFor(/─\n +summarize @notes\.md +\n─/);
      live.type("now");
      await live.waitFor(/\[n\] no/);
      live.type("y");
      await live.waitFor(/Printed\./);
      await live.idle();
      live.type("delete it");
      await live.waitFor(/\[n\] no/);
      live.type("n");
      await live.waitFor(/Not deleted\./);
      await live.idle();
      live.type("fail please");
      await live.waitFor(/error: HTTP 500: boom/);
      await live.idle();
      live.type("slow one");
      await live.waitFor(/Starting/);
      live.key("Escape");
      await live.waitFor(/^cancelled$/m);
      await live.idle();
      live.type("/compact");
      await live.waitFor(/compacted the conversation \(manual\)/);
      const liveScreen = screenLines(await live.idle());
      const sessionId = /session ([0-9a-f-]{36})/.exec(liveScreen.join("\n"))?.[1];
      // A call's time and the compaction's token estimates (and so the context's share after it,
      // and how much of the key help fits beside it) vary from run to run; the reopened screen
      // must show the same figures, compared below.
      const figures = (row: string) =>
        row
          .replace(/[\d.]+ (?:ms|s|min)$/, "<time>")
          .replace(/\d+ → \d+ tokens/, "<tokens>")
          .replace(/^Enter send · .*\.\.\. {2}(?=fake-model · )/, "Enter send · <cut>  ")
          .replace(/ctx \d+%( · \d+ in \d+ out)?$/, "ctx <share>$1");
      expect(liveScreen.slice(2).map(figures)).toEqual([
        "commands",
        "",
        "$ echo hello",
        "hello",
        "exit 0 · the output goes to the model with your next prompt",
        "",
        "› summarize @notes.md now",
        "attached notes.md",
        "✓ bash echo tool-out  <time>",
        "  tool-out",
        "",
        "Printed.",
        "",
        "› delete it",
        "✗ bash rm notes.md  denied",
        "  Permission denied for 'bash': the user said no",
        "",
        "Not deleted.",
        "",
        "› fail please",
        "error: HTTP 500: boom",
        "",
        "› slow one",
        "",
        "Starting",
        "cancelled",
        "",
        "/compact",
        "compacted the conversation (manual): <tokens>",
        "─".repeat(100),
        "",
        "─".repeat(100),
        "Enter send · <cut>  fake-model · ask · ctx <share> · 50 in 25 out",
      ]);
      live.type("/exit");
      await live.exited();
      expect(printedSessionId(await live.screen(500))).toBe(sessionId);

      // The same session reopened at the same size: the whole screen, every row, as it was live.
      const reopened = fixture.open(["--resume", String(sessionId)], size);
      await reopened.waitForScreen(liveScreen);
      reopened.key("C-d");
      expect((await reopened.exited()).code).toBe(0);
    },
    90_000,
  );

  interactiveTest(
    "opens in the mode this run's flags give, not the more permissive one it was left in (README, Permission modes)",
    async ({ fixture }) => {
      fixture.server.enqueue({ text: "Hello." });
      const live = await fixture.openReady([], { columns: 100 });
      live.type("/mode auto");
      await live.waitFor(/fake-model · auto · /);
      live.type("hi");
      await live.waitFor(/Hello\./);
      await live.idle();
      live.key("C-d");
      await live.exited();
      const sessionId = printedSessionId(await live.screen(500));

      const reopened = fixture.open(["--resume", sessionId], { columns: 100 });
      await reopened.waitFor(/Hello\.[\s\S]*fake-model · ask · /);
      reopened.key("C-d");
      expect((await reopened.exited()).code).toBe(0);
      const permissive = fixture.open(["--resume", sessionId, "--permission-mode", "auto"], {
        columns: 100,
      });
      await permissive.waitFor(/Hello\.[\s\S]*fake-model · auto · /);
      permissive.key("C-d");
      expect((await permissive.exited()).code).toBe(0);
    },
  );
});
