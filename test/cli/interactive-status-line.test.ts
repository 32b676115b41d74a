import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// A fresh user's trial: the status line named the model `fake · ask` idle and
// `openai-compatible:fake · ask` while working (the shorter left part left room for the
// provider prefix). The right part is now chosen by the width alone: one name, idle or working.

/** The status line (the screen's last line), its left part cut off at the model's name. */
function rightOfStatus(screen: string, model: string): string {
  const status = screen.split("\n").at(-1) ?? "";
  const start = status.lastIndexOf(model);
  return start === -1 ? status : status.slice(status.lastIndexOf(" ", start) + 1);
}

describe.skipIf(tmuxMissing())("the interactive status line", () => {
  for (const columns of [80, 140]) {
    interactiveTest(
      `names the model one way, idle and working (${columns} columns)`,
      async ({ fixture }) => {
        fixture.server.enqueue({ text: ["Some", " words"], stallAfterEvents: 2 });
        const terminal = await fixture.openReady([], { columns });
        const idle = rightOfStatus(await terminal.idle(), "fake-model");
        terminal.type("hello");
        const working = await terminal.waitFor(/working \d+s · Esc cancels/);
        expect({ idle, working: rightOfStatus(working, "fake-model") }).toEqual({
          idle:
            columns === 80
              ? "fake-model · ask · ctx 0% · 0 in 0 out"
              : "openai-compatible:fake-model · ask · ctx 0% · 0 in 0 out",
          working:
            columns === 80
              ? "fake-model · ask · ctx 0% · 0 in 0 out"
              : "openai-compatible:fake-model · ask · ctx 0% · 0 in 0 out",
        });
        terminal.key("Escape");
        await terminal.idle();
      },
    );
  }
});
