import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { gate } from "../support/gate.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

// The trial of round 3 session 28 found the interactive session's questions answered by keys typed
// for a message. The plain-line face (TERM=dumb) on a terminal read a question's answer from the
// queue of lines typed while the model worked: a message typed ahead answered a question nobody
// had seen. Its answer now comes from a line typed after the question; the message stays queued.

describe.skipIf(tmuxMissing())("turnloop (TERM=dumb): a line typed before a question", () => {
  interactiveTest(
    "is not its answer: the question waits for a line typed after it, and the line is sent as a message after",
    async ({ fixture }) => {
      const typedAhead = gate();
      const command = "echo RAN > ran.txt";
      fixture.server.enqueue(
        {
          toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
          pause: { afterEvents: 0, until: typedAhead.opened },
        },
        { text: "Not run." },
        { text: "Read your note." },
      );
      const terminal = fixture.open([], { env: { TERM: "dumb" } });
      await terminal.waitFor(/^> *$/m);
      terminal.type("write the file");
      await expect.poll(() => fixture.server.requests.length).toBe(1);
      // Typed while the model works (the answer's stream is held): a message, not an answer.
      terminal.type("yes and then run the tests");
      await terminal.waitFor(/yes and then run the tests/);
      typedAhead.open();
      await terminal.waitFor(/\[t\] no, and tell the model why > *$/m);
      expect(existsSync(join(fixture.repository, "ran.txt"))).toBe(false);
      terminal.type("n");
      await terminal.waitFor(/Read your note\./);
      expect(existsSync(join(fixture.repository, "ran.txt"))).toBe(false);
      expect(fixture.lastMessage(1)).toMatch(/the user said no/);
      expect(fixture.lastMessage(2)).toBe("yes and then run the tests");
      terminal.type("/exit");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
