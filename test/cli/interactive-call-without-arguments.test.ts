import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// Trial of session 24's build (round 3, session 25, #6): a call with no argument to show (a `view`
// without a path) was drawn `✗ view   failed`, the gap for its missing arguments left in.

describe.skipIf(tmuxMissing())("turnloop (interactive): a call without arguments to show", () => {
  interactiveTest(
    "its line is the name, then its outcome after the usual gap",
    async ({ fixture }) => {
      fixture.server.enqueue(
        { toolCalls: [{ id: "call_1", name: "view", arguments: "{}" }] },
        { text: "no path given" },
      );
      const terminal = await fixture.openReady([], { columns: 100 });
      terminal.type("look");
      const screen = await terminal.waitFor(/no path given/);
      expect(screen).toMatch(/^✗ view {2}invalid arguments *$/m);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
