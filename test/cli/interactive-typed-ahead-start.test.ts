import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { INPUT_BOX, interactiveTest } from "./interactive-support.js";

/**
 * Trial 38 F1: a prompt and Enter typed while turnloop starts (`turnloop` Enter, then the prompt
 * and Enter, as one does) stayed in the input box, unsent. The keys reach the terminal while it is
 * still in cooked mode, whose ICRNL turns the Enter's CR into LF; raw mode then hands that LF over
 * as Ctrl-J, which the input box takes as a new line. Ordered by gates: the CLI starts once the
 * terminal has echoed the keys typed (a file the test makes), then the test waits for the answer.
 */
describe.skipIf(tmuxMissing())(
  "turnloop (interactive): keys typed before the screen is drawn",
  () => {
    interactiveTest(
      "a prompt and Enter typed during start-up are sent; the keys after them stay in the box, in order",
      async ({ fixture }) => {
        fixture.server.enqueue({ text: "Answer to the early prompt." });
        const start = join(fixture.home, "start");
        const terminal = fixture.open([], { columns: 100, rows: 30, startWhen: start });
        terminal.write("what is typed ahead\rthe next draft");
        // The terminal in cooked mode echoes the keys; turnloop has drawn nothing yet.
        const echoed = await terminal.waitFor(/what is typed ahead\nthe next draft$/);
        expect(echoed).not.toMatch(INPUT_BOX);
        await writeFile(start, "");
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
