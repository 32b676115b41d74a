import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";

// The last trials: a reopen that failed after it had written its `session.resume` (`-p --resume`
// on a full disk: the metadata write after it failed; `sessions compact` whose summary request
// failed) still showed `— resumed <time>` in `sessions show`, claiming a resume that did not
// happen. The log keeps the event (it is written before the failure is known); `sessions show`
// now draws a reopen only when the conversation went on after it (a prompt, or results given to
// calls left open) or it repaired the log; `sessions view` and the exports draw by the same rule.

/** The lines of `sessions show` with the times taken out. */
function shownLines(stdout: string): string[] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => line.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>"));
}

describe.runIf(CAN_MOUNT)(needingMount("a -p --resume the full disk refused"), () => {
  const disk = useFullDisk(64, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  test("draws no resume; the next one that works is drawn once", async ({ cli, model }) => {
    model.enqueue({ text: "Saved." });
    const saved = await cli(["-p", "hi", "--output-format", "json"], { env: disk.env });
    const sessionId = (JSON.parse(saved.stdout) as { session_id: string }).session_id;
    // One block: the reopen writes its lock and its session.resume, then the metadata fails.
    await disk.leave(1);
    const refused = await cli(["-p", "again", "--resume", sessionId], { env: disk.env });
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringMatching(/metadata\.json could not be written \(ENOSPC/),
    ]);
    await disk.free();
    const afterRefusal = await cli(["sessions", "show", sessionId], { env: disk.env });
    expect(shownLines(afterRefusal.stdout)).toEqual([
      expect.stringMatching(/^session .* started <time>$/),
      "",
      "> hi",
      "Saved.",
      "[stop: end_turn]",
    ]);
    model.enqueue({ text: "Again." });
    expect((await cli(["-p", "again", "--resume", sessionId], { env: disk.env })).code).toBe(0);
    const resumed = await cli(["sessions", "show", sessionId], { env: disk.env });
    expect(shownLines(resumed.stdout).slice(1)).toEqual([
      "",
      "> hi",
      "Saved.",
      "[stop: end_turn]",
      "",
      "— resumed <time>",
      "",
      "> again",
      "Again.",
      "[stop: end_turn]",
    ]);
  });
});

test("a sessions compact that failed draws its failure, not a resume", async ({ cli, model }) => {
  model.enqueue({ text: "One." }, { text: "Two." });
  const saved = await cli(["-p", "hi", "--output-format", "json"]);
  const sessionId = (JSON.parse(saved.stdout) as { session_id: string }).session_id;
  expect((await cli(["-p", "more", "--resume", sessionId])).code).toBe(0);
  model.enqueue({ status: 500, body: "boom" }, { status: 500, body: "boom" });
  const compact = await cli(["sessions", "compact", sessionId], {
    env: { TURNLOOP_MAX_RETRIES: "0" },
  });
  expect(compact.code).toBe(1);
  const shown = await cli(["sessions", "show", sessionId]);
  expect(shownLines(shown.stdout).slice(1)).toEqual([
    "",
    "> hi",
    "One.",
    "[stop: end_turn]",
    "",
    "— resumed <time>",
    "",
    "> more",
    "Two.",
    "[stop: end_turn]",
    "",
    "— compaction · manual, between prompts: turnloop sessions compact, /compact or an app's session.history.compact",
    expect.stringMatching(/^compaction failed: the summary request failed twice: HTTP 500/),
  ]);
  // The view (its data is the JSON export's) and the Markdown export follow the same rule: the
  // reopen of `-p more` is drawn, the compaction's is not.
  const markdown = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
  expect(markdown.stdout.match(/^- \*\*resume\*\* .*$/gm)).toEqual([
    expect.stringMatching(/: session resumed$/),
  ]);
  const data = await cli(["sessions", "export", sessionId, "--format", "json"]);
  expect(data.stdout.match(/"kind": ?"resume"/g)).toHaveLength(1);
  const view = await cli(["sessions", "view", sessionId, "--out", "view.html", "--no-open"]);
  expect(view.code).toBe(0);
});
