import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Round 3 session 43: a process killed (SIGKILL) between two turns of a prompt (here while it
// waits to retry a failed model request: the failed turn ended, the next not begun) left the
// prompt without an end for good: no turn was open for the reopen to close, so every view called
// it running. The next writer now ends it as interrupted, once (session/open-work.ts), with the
// error a follower is told for a prompt its owner left unfinished (prompt-end.ts
// PROMPT_INTERRUPTED), and every view shows the prompt interrupted.

/** Kills `child` with SIGKILL once its stream-json output shows the request's retry. */
function killAtRetry(child: ChildProcess): void {
  let seen = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    seen += chunk.toString("utf8");
    if (seen.includes('"assistant.retry"') && !child.killed) {
      child.kill("SIGKILL");
    }
  });
}

test("a prompt killed between two turns is ended as interrupted by the next writer, once, and every view says so", async ({
  cli,
  model,
  home,
}) => {
  // The first request fails; the retry waits 50 s (under the 60 s cap): the process dies then.
  model.enqueue({
    status: 503,
    headers: { "retry-after": "50" },
    body: { error: { message: "busy" } },
  });
  const crashed = await cli(["-p", "count", "--output-format", "stream-json"], {
    onStart: killAtRetry,
  });
  expect(crashed.signal).toBe("SIGKILL");
  const [sessionId = ""] = await readdir(join(home, "session-state"));
  const logPath = join(home, "session-state", sessionId, "events.jsonl");
  const before = await readFile(logPath, "utf8");

  model.enqueue({ text: "answered" });
  const resumed = await cli(["-p", "after crash", "--resume", sessionId]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    "turnloop: repaired the session log: ended 1 prompt left without an end when its process ended, as interrupted\n",
  );
  model.enqueue({ text: "again" });
  const again = await cli(["-p", "once more", "--resume", sessionId]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).not.toContain("repaired");

  // Append-only: the old lines stay as they were; the end is written once, after the resume.
  const log = await readFile(logPath, "utf8");
  expect(log.startsWith(before)).toBe(true);
  const events = log
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  expect(events.map((event) => event.type)).toEqual([
    "session.start",
    "user.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.retry",
    "session.resume",
    "session.error",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.usage",
    "assistant.turn_end",
    "session.resume",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.usage",
    "assistant.turn_end",
  ]);
  expect(events[5]?.data).toEqual({
    resumeTime: expect.any(String),
    eventCount: 5,
    repaired: [],
    interruptedPrompts: 1,
    notice:
      "repaired the session log: ended 1 prompt left without an end when its process ended, as interrupted",
  });
  expect(events[6]?.data).toEqual({
    errorType: "server",
    message:
      "the prompt was interrupted: the process running it ended before it finished (the session was reopened since)",
  });

  const shown = await cli(["sessions", "show", sessionId]);
  expect(shown.stdout.split("\n")).toEqual([
    expect.stringMatching(new RegExp(`^session ${sessionId} · `)),
    "",
    "> count",
    "↻ retry 1 in 50 s: HTTP 503: busy",
    "the prompt was interrupted: the process running it ended before it finished (the session was reopened since)",
    "[stop: interrupted]",
    "",
    expect.stringMatching(/^— resumed \d{4}-\d\d-\d\dT[\d:.]+Z$/),
    "",
    "> after crash",
    "answered",
    "[stop: end_turn]",
    "",
    expect.stringMatching(/^— resumed /),
    "",
    "> once more",
    "again",
    "[stop: end_turn]",
    "",
  ]);
  expect(shown.stdout).not.toContain("no stop recorded");
  const exported = JSON.parse(
    (await cli(["sessions", "export", sessionId, "--format", "json"])).stdout,
  );
  expect(exported.summary.running).toBe(false);
  expect(exported.prompts.map((prompt: { stopReason: string }) => prompt.stopReason)).toEqual([
    "interrupted",
    "end_turn",
    "end_turn",
  ]);
});
