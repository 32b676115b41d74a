import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { interactiveTest, printedSessionId } from "./interactive-support.js";

/** A command that runs until the test creates `gate`, then prints a line built by the shell. */
const GATED = "while [ ! -e gate ]; do sleep 0.05; done; echo gate-$((1+1))";

describe.skipIf(tmuxMissing())("turnloop (interactive): Ctrl-D while a prompt runs", () => {
  interactiveTest(
    "is /exit typed then: queued, the command runs on, the turn ends, then the session closes",
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
      await terminal.waitFor(/running [\d.]+ (?:ms|s|min)/);
      terminal.key("C-d");
      const queued = await terminal.waitFor(/queued › \/exit/);
      expect(queued).toMatch(/● bash while .* running [\d.]+ (?:ms|s|min)/);
      await writeFile(join(fixture.repository, "gate"), "");
      expect((await terminal.exited()).code).toBe(0);
      const closing = await terminal.waitFor(/\[exit \d+\]/);
      // The work before the exit ran whole: the command's output and the model's last answer.
      const events = await fixture.events(printedSessionId(closing));
      expect(events.filter((event) => event.type === "tool.execution_complete")).toMatchObject([
        { data: { success: true, result: { content: expect.stringContaining("gate-2") } } },
      ]);
      expect(events.filter((event) => event.type === "assistant.message").at(-1)).toMatchObject({
        data: { content: "The command finished." },
      });
      expect(fixture.server.requests).toHaveLength(2);
    },
  );
});
