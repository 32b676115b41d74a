import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { INPUT_BOX, interactiveTest } from "./interactive-support.js";

/**
 * Trial 38 F1: a prompt and Enter typed while turnloop starts (`turnloop` Enter, then the prompt
 * and Enter, as one does) stayed in the input box, unsent. The keys reach the terminal while it is
 * still in cooked mode, whose ICRNL turns the Enter's CR into LF; raw mode then hands that LF over
 * as Ctrl-J, which the input box takes as a new line. Ordered by what the screen shows: the keys
 * are typed before the input box is drawn (checked), then the test waits for the answer.
 */
describe.skipIf(tmuxMissing())(
  "turnloop (interactive): keys typed before the screen is drawn",
  () => {
    interactiveTest(
      "a prompt and Enter typed during start-up are sent; the keys after them stay in the box, in order",
      async ({ fixture }) => {
        fixture.server.enqueue({ text: "Answer to the early prompt." });
        const terminal = fixture.open([], { columns: 100, rows: 30 });
        terminal.write("what is typed ahead\rthe next draft");
        // The keys went to the terminal before turnloop drew anything (a Node start-up takes far
        // longer than two tmux commands); else this test would not test start-up.
        expect(terminal.screen()).not.toMatch(INPUT_BOX);
        const screen = await terminal.waitFor(
          /Answer to the early prompt\.[\s\S]*─{20,}\n *the next draft *\n─{20,}/,
        );
        expect(fixture.lastMessage(0)).toBe("what is typed ahead");
        expect(fixture.server.requests).toHaveLength(1);
        expect(screen).toMatch(/› what is typed ahead/);
        terminal.key("C-u");
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
      },
    );
  },
);
