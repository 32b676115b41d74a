import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest } from "./interactive-support.js";

/** A command that runs until the test creates `gate`, then prints a line built by the shell. */
const GATED = "while [ ! -e gate ]; do sleep 0.05; done; echo gate-$((1+1))";

describe.skipIf(tmuxMissing())("turnloop (interactive): Ctrl-D while a prompt runs", () => {
  interactiveTest(
    "does not end the session nor stop the command: the status line says what does; the turn ends and the session stays open",
    async ({ fixture }) => {
      fixture.server.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: GATED }) },
          ],
        },
        { text: "The command finished." },
      );
      const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 100 });
      terminal.type("run the command");
      await terminal.waitFor(/running \d+\.\ds/);
      terminal.key("C-d");
      const hinted = await terminal.waitFor(/Ctrl-D exits when idle · Esc cancels the prompt/);
      expect(hinted).toMatch(/● bash while .* running \d+\.\ds/);
      await writeFile(join(fixture.repository, "gate"), "");
      const done = await terminal.waitFor(/The command finished\./);
      expect(done).toMatch(/✓ bash while .*\n +gate-2\n/);
      // The session is still open: the next prompt is answered.
      fixture.server.enqueue({ text: "Still here." });
      // The hint stays until the next key, as Ctrl-C's does; Esc on an idle empty line does nothing else.
      terminal.key("Escape");
      await terminal.idle();
      terminal.type("are you there?");
      await terminal.waitFor(/Still here\./);
      await terminal.idle();
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
      expect(fixture.server.requests).toHaveLength(3);
    },
  );
});
