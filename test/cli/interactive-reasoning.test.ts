import { describe, expect } from "vitest";
import { gate } from "../support/gate.js";
import { screenLines, tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

/**
 * The full screen shows a reply's reasoning, as ACP (`agent_thought_chunk`) and the SDK
 * (`reasoningText`) carry it: one dim `thinking:` row with its first line (`…` when more
 * follows), growing while it streams, and the same row when the session is reopened (lane
 * status, round 3 session 36: the terminal drew no reasoning at all).
 */
describe.skipIf(tmuxMissing())("reasoning on the full screen", () => {
  interactiveTest("a thinking row, live while it streams and reopened", async ({ fixture }) => {
    const held = gate();
    fixture.server.enqueue({
      reasoning: ["Weighing the options.", "\nThen the details."],
      text: "Done.",
      // Held after the first piece of reasoning until the test has seen it drawn.
      pause: { afterEvents: 2, until: held.opened },
    });
    const live = await fixture.openReady([], { columns: 80 });
    live.type("think first");
    await live.waitFor(/^thinking: Weighing the options\.$/m);
    held.open();
    await live.waitFor(/Done\./);
    const rows = (screen: string) => {
      const lines = screenLines(screen);
      return lines.slice(lines.indexOf("› think first"), lines.indexOf("Done.") + 1);
    };
    const shown = ["› think first", "", "thinking: Weighing the options. …", "", "Done."];
    expect(rows(await live.idle())).toEqual(shown);
    live.key("C-d");
    expect((await live.exited()).code).toBe(0);
    const sessionId = printedSessionId(await live.screen(500));

    const reopened = fixture.open(["--resume", sessionId], { columns: 80 });
    await reopened.waitFor(/Done\./);
    expect(rows(await reopened.screen())).toEqual(shown);
    reopened.key("C-d");
    expect((await reopened.exited()).code).toBe(0);
  });
});
