import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { requireSandbox } from "../support/sandbox.js";
import { withoutToolTimes } from "../support/tool-times.js";

// A sandboxed command that left a process running (`(server &)`, `nohup server &`) had it killed
// when it ended, since the sandbox's pid namespace ends with the command, and nobody was told:
// the model waited on a server that was gone. The command's shell now counts what it left
// running (src/tools/sandbox/left-running.ts) and the result says so, with advice that holds in
// the sandbox; outside it the runner's own note (`nohup … &`) is unchanged (test/tools/bash.test.ts).

const sandboxReady = await requireSandbox();

/** Two processes left running: one in a subshell, one `nohup`ed with its output elsewhere. */
const COMMAND = "(sleep 600 &); nohup sleep 600 > /dev/null 2>&1 & echo started";

/** What the model and `sessions show` get after the exit line. */
const NOTE =
  "The sandbox stopped 2 processes this command left running: in the sandbox every process a command starts ends with it, `nohup` and `&` included. Run what needs it in the same command (`server & sleep 2; curl localhost:8080; kill %1`), or ask the user to start it outside the sandbox.";

describe.skipIf(!sandboxReady)("processes a sandboxed command left running", () => {
  test("the model and sessions show hear how many the sandbox stopped, and what works there", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "bash", arguments: JSON.stringify({ command: COMMAND }) },
        ],
      },
      { text: "Done." },
    );
    const result = await cli(["-p", "start it", "--sandbox", "workspace-write", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    const toolMessage = chatMessages(model, -1).find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe(`started\n<exited with exit code 0>\n${NOTE}`);
    const shown = await cli(["sessions", "show", printedSessionId(result.stderr)]);
    expect(withoutToolTimes(shown.stdout).trimEnd().split("\n").slice(2)).toEqual([
      "> start it",
      // Lines cut to the width sessions show keeps; the count leads the note.
      `→ bash(command: "(sleep 600 &); nohup sleep 600 > /dev/null 2>&1 &…) ✓`,
      "    started",
      "    The sandbox stopped 2 processes this command left running: in the sandbox every process a command starts ends with it, …",
      "Done.",
      "[stop: end_turn]",
    ]);
  });

  test("a command whose background processes ended before it gets no note", async ({
    cli,
    model,
  }) => {
    const command = "sleep 0 & wait; echo waited";
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "Done." },
    );
    const result = await cli(["-p", "run it", "--sandbox", "workspace-write", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    const toolMessage = chatMessages(model, -1).find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe("waited\n<exited with exit code 0>");
  });
});
