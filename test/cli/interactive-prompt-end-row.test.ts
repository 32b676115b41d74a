import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

// The last trial: after SIGTERM the interactive screen's last frame still said "working 0s · Esc
// cancels" in its status row (the frame with the prompt's end was never drawn before the
// terminal was given back), SIGHUP and SIGINT from outside too. The row now says how the prompt
// ended: `cancelled by SIGTERM` as the face exits, `stopped: reached the turn limit (1); send a message to go on`
// when a limit stops a prompt and the session goes on.

/** The status row of the screen's last frame: the last row naming the model and mode. */
function lastStatusRow(screen: string): string {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  return rows.findLast((row) => / fake-model · ask/.test(row)) ?? "";
}

describe.skipIf(tmuxMissing())("the interactive status row when a prompt ends", () => {
  for (const [signal, words] of [
    ["SIGTERM", "cancelled by SIGTERM"],
    ["SIGHUP", "cancelled by SIGHUP"],
    ["SIGINT", "cancelled"],
  ] as const) {
    interactiveTest(
      `a ${signal} mid-prompt: the last frame says \`${words}\``,
      async ({ fixture }) => {
        fixture.server.enqueue({ text: ["Some", " words"], stallAfterEvents: 2 });
        const terminal = await fixture.openReady([], { columns: 100 });
        terminal.type("hello");
        await terminal.waitFor(/working \d+s · Esc cancels/);
        process.kill(terminal.cliPid(), signal);
        await terminal.exited();
        const screen = await terminal.screen(200);
        expect(printedSessionId(screen)).toMatch(/^[0-9a-f-]{36}$/);
        expect(lastStatusRow(screen)).toMatch(new RegExp(`^${words} {2,}fake-model · ask`));
      },
    );
  }

  interactiveTest(
    "a `!command` cut by SIGTERM: the last frame says so too",
    async ({ fixture }) => {
      const terminal = await fixture.openReady([], { columns: 100 });
      await terminal.idle();
      terminal.type("!sleep 30");
      await terminal.waitFor(/working \d+s · Esc cancels/);
      process.kill(terminal.cliPid(), "SIGTERM");
      await terminal.exited();
      const screen = await terminal.screen(200);
      expect(screen).toContain("no prompt was sent: the session was not saved");
      expect(lastStatusRow(screen)).toMatch(/^cancelled by SIGTERM {2,}fake-model/);
    },
  );

  interactiveTest(
    "a prompt the turn limit stops: the row names the limit and how to go on until the next key",
    async ({ fixture }) => {
      const call = { id: "call_1", name: "glob", arguments: '{"pattern":"*.none"}' };
      fixture.server.enqueue({ toolCalls: [call] });
      const terminal = await fixture.openReady(["--max-turns", "1"], { columns: 100 });
      await terminal.idle();
      terminal.type("look");
      const stopped = await terminal.waitFor(
        // The row cuts the line at the terminal's width before the model's name.
        /✓ glob[\s\S]*stopped: reached the turn limit \(1\); send a message to go on {2,}fake-model/,
      );
      expect(stopped).not.toMatch(/working/);
      terminal.write("x");
      await terminal.idle();
    },
  );
});
