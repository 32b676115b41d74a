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
import { withoutToolTimes } from "../support/tool-times.js";

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
    // The call is drawn in its prompt with the result the resume gave it, before that prompt's
    // stop and the resume line (it came after both: trial 31, LOW 5).
    const conversation = [
      "> wait",
      `→ bash(command: "${command}") ⊘ interrupted`,
      "    Interrupted: turnloop stopped before the tool call's result was recorded; it may have run, in part or in full.",
      "[stop: interrupted]",
      "",
      expect.stringMatching(/^— resumed \d{4}-\d\d-\d\dT[\d:.]+Z$/),
      "",
      "> again",
      "resumed fine",
      "[stop: end_turn]",
    ];
    expect(withoutToolTimes(shown.stdout).split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^session ${sessionId} · `)),
      "",
      ...conversation,
      "",
    ]);

    // The export agrees: the call under its turn, the resume on the prompt the reopen led to
    // (trial 38 F7), before that prompt's first turn.
    const exported = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
    expect(exported.code).toBe(0);
    const headings = exported.stdout
      .split("\n")
      .filter((line) => /^#{2,4} |^- \*\*/.test(line))
      .map((line) =>
        line
          .replace(/ · [\d.]+ m?s.*$/, "")
          .replace(/ at \+.*$/, "")
          .replace(/ [\d.]+ m?s before the prompt: session resumed$/, ""),
      );
    expect(headings).toEqual([
      "## Prompt 1 · interrupted",
      "### Turn 1 · interrupted",
      "#### `bash` · interrupted",
      "## Prompt 2 · end_turn",
      "- **resume**",
      "### Turn 2 · completed",
    ]);

    // The plain face reopening it draws the same conversation, then its own open.
    const reopened = await cli(["--resume", sessionId], { stdin: "" });
    expect(reopened.code).toBe(0);
    const replay = withoutToolTimes(reopened.stdout).split("\n");
    const first = replay.indexOf("> wait");
    expect(replay.slice(first, first + conversation.length + 2)).toEqual([
      ...conversation,
      "",
      expect.stringMatching(/^— resumed /),
    ]);
  });
});
