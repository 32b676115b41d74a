import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, pastSession } from "./interactive-support.js";

// A fresh user's trial: `turnloop --resume <id>` of a session another process holds drew the
// input box and the status line, then printed the lock error under them and exited 1, leaving
// that frame on the terminal. The frame is now taken away before the error is printed, as when
// the face fails before drawing (no model): the error is all the terminal shows of the face.

describe.skipIf(tmuxMissing())("--resume of a session open elsewhere", () => {
  interactiveTest("the error alone, no input box or status line left", async ({ fixture }) => {
    const sessionId = await pastSession(fixture, "hi", "Hello.");
    const holder = await fixture.openReady(["--resume", sessionId]);
    const second = fixture.open(["--resume", sessionId]);
    expect((await second.exited()).code).toBe(1);
    const lines = (await second.screen(500))
      .split("\n")
      .filter((line) => !line.startsWith("[stty "));
    const shown = lines.map((line) =>
      line
        .replaceAll(sessionId, "ID")
        .replaceAll(fixture.home, "HOME")
        .replace(/pid \d+/, "pid P")
        .replace(/since \S+\)/, "since T)"),
    );
    expect(shown).toEqual([
      "turnloop: Session ID is open in another process (pid P, running: turnloop --resume ID, " +
        "since T); close it there first.",
      "[exit 1]",
    ]);
    expect((await holder.exitWithCtrlC()).code).toBe(0);
  });
});
