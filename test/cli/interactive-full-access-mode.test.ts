import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial of round 3 session 36 (P3-1): under --allow-all-tools the status line read
// `fake-model · auto`, the word of the sandboxed permission mode, though every tool ran unconfined
// and unasked. It says `full-access` now; `/mode ask` still reads `ask`.

/** The status line (the screen's last line) from the model's name on. */
function rightOfStatus(screen: string): string {
  const status = screen.split("\n").at(-1) ?? "";
  return status.slice(status.indexOf("fake-model"));
}

describe.skipIf(tmuxMissing())("the status line under --allow-all-tools", () => {
  interactiveTest("says full-access, and ask after /mode ask", async ({ fixture }) => {
    const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 80 });
    expect(rightOfStatus(await terminal.idle())).toBe(
      "fake-model · full-access · ctx 0% · 0 in 0 out",
    );
    terminal.type("/mode ask");
    const asked = await terminal.waitFor(/fake-model · ask · ctx/);
    expect(rightOfStatus(asked)).toBe("fake-model · ask · ctx 0% · 0 in 0 out");
  });
});
