import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { updatePlanCall } from "../support/plan.js";
import { interactiveTest } from "./interactive-support.js";

// The plan on the interactive screen is a checklist drawn from the session model, one block that
// is redrawn when the plan changes, never the update_plan call's JSON arguments (issue 24 item 2).

/** The screen's lines from the first `plan` heading through the checklist under it. */
function planBlocks(screen: string): string[][] {
  const lines = screen.split("\n").map((line) => line.trimEnd());
  const blocks: string[][] = [];
  lines.forEach((line, index) => {
    if (line === "plan") {
      blocks.push(lines.slice(index, index + 4));
    }
  });
  return blocks;
}

describe.skipIf(tmuxMissing())("the plan on the interactive screen", () => {
  interactiveTest(
    "update_plan shows as one checklist block, redrawn with the new marks when the plan changes",
    async ({ fixture }) => {
      fixture.server.enqueue(
        { toolCalls: [updatePlanCall("p1", ["in_progress", "pending", "pending"])] },
        { text: "Planned." },
        { toolCalls: [updatePlanCall("p2", ["completed", "completed", "in_progress"])] },
        { text: "Tests running." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("Fix the bug");
      await terminal.waitFor(/Planned\./);
      const first = await terminal.idle();
      expect(planBlocks(first)).toEqual([
        ["plan", "◐ Find the bug", "☐ Fix it", "☐ Run the tests"],
      ]);
      terminal.type("Go on");
      await terminal.waitFor(/Tests running\./);
      const second = await terminal.idle();
      expect(planBlocks(second)).toEqual([
        ["plan", "☑ Find the bug", "☑ Fix it", "◐ Run the tests"],
      ]);
      for (const screen of [first, second]) {
        expect(screen).not.toContain("update_plan");
        expect(screen).not.toContain('"content"');
      }
      // The one block is below the second prompt: the earlier one was removed, not left above.
      expect(second.indexOf("› Go on")).toBeLessThan(second.indexOf("☑ Find the bug"));
    },
  );

  interactiveTest(
    "a failed update_plan shows its tool line with the reason, as -p does, and no checklist",
    async ({ fixture }) => {
      fixture.server.enqueue(
        { toolCalls: [{ id: "p1", name: "update_plan", arguments: '{"entries":"none"}' }] },
        { text: "Sorry." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("Plan it");
      await terminal.waitFor(/Sorry\./);
      const screen = await terminal.idle();
      expect(planBlocks(screen)).toEqual([]);
      const lines = screen.split("\n").map((line) => line.trim());
      const call = lines.findIndex((line) => line.includes("update_plan"));
      // The call's line with its state, then the tool's reason under it.
      expect(lines.slice(call, call + 2), screen).toEqual([
        "✗ update_plan entries=none  invalid arguments",
        expect.stringMatching(/^Invalid arguments for 'update_plan': /),
      ]);
    },
  );
});
