/**
 * `sessions show` of a session whose `-p` was killed (SIGKILL) while a command ran, then resumed:
 * the call shows once, with its arguments and the interrupted result the resume gave it; it was
 * shown twice, "… no result" under its prompt, then `bash()` without arguments after the resume
 * line (a fresh user's trial, bench/notes/trial.md item 7).
 */

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

describe("sessions show after a crash repair", () => {
  test("the cut-off call shows once, with its arguments and its interrupted result", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const command = "touch started; sleep 20";
    model.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    const killed = await cli(["-p", "wait", "--allow-all-tools"], {
      onStart: (child) =>
        whenFileExists(join(repository, "started"), child, () => child.kill("SIGKILL")),
    });
    expect(killed.signal).toBe("SIGKILL");
    const [sessionId = ""] = await readdir(join(home, "session-state"));

    model.enqueue({ text: "resumed fine" });
    const resumed = await cli(["-p", "again", "--resume", sessionId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The resume says what it repaired, and its notice says no more: no damaged line, one call.
    const log = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
    const resumes = log
      .split("\n")
      .filter((line) => line.includes('"session.resume"'))
      .map((line) => JSON.parse(line).data);
    expect(resumes).toEqual([
      {
        resumeTime: expect.any(String),
        eventCount: expect.any(Number),
        repaired: [],
        interruptedToolCalls: 1,
        // The turn holding the call was left open too (trial 24 finding 2).
        interruptedTurns: 1,
        notice:
          "repaired the session log: gave 1 tool call left without a result an interrupted result; closed 1 turn left open when its process ended, as interrupted",
      },
    ]);

    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code).toBe(0);
    const callLines = shown.stdout.split("\n").filter((line) => line.startsWith("→ "));
    expect(callLines).toEqual([`→ bash(command: "${command}") ⊘ interrupted`]);
    expect(shown.stdout).not.toContain("no result");
  });
});
