import { expect } from "vitest";
import { limitedModel, viewEachFile, writeSixFiles } from "../support/context-limit.js";
import { printedSessionId, test } from "../support/fixtures.js";

const NO_RETRIES = { TURNLOOP_MAX_RETRIES: "0" };

/** A Markdown export's outline: prompts, turns, marks and answers, one line each, in order. */
function outline(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => /^## Prompt|^### Turn|^#### |^- \*\*|^finished$/.test(line))
    .map((line) =>
      line
        .replace(/ · (\d+(\.\d+)? m?s|\?)( · .*)?$/, "")
        .replace(/ (at \+[\d.]+ m?s|[\d.]+ m?s before the (request|prompt)): /, ": ")
        .replace(/\d+/g, (digits) => (digits.length > 2 ? "N" : digits)),
    );
}

// A trial of session 21's build (round 3, session 22, #2): a later -p --resume's "session resumed"
// was listed in Prompt 1's last turn above its answer, `sessions compact`'s marks in Prompt 2's
// answer turn, and "compaction started" above the call it followed.
test("the Markdown export lists marks between turns in log order", async ({
  cli,
  model,
  repository,
}) => {
  await writeSixFiles(repository);
  model.setResponder(limitedModel({ limit: 8_000, conversation: viewEachFile }));
  const window = ["--context-window", "8000"];
  const first = await cli(["-p", "read all files", ...window], { env: NO_RETRIES });
  expect(first.code).toBe(0);
  const sessionId = printedSessionId(first.stderr);
  const second = await cli(["-p", "and now?", "--resume", sessionId, ...window], {
    env: NO_RETRIES,
  });
  expect(second.code).toBe(0);
  expect((await cli(["sessions", "compact", sessionId], { env: NO_RETRIES })).code).toBe(0);
  const exported = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
  expect(outline(exported.stdout)).toEqual([
    "## Prompt 1 · end_turn",
    "### Turn 1 · completed",
    "#### `view` · success",
    "### Turn 2 · completed",
    "#### `view` · success",
    "### Turn 3 · completed",
    "#### `view` · success",
    // The threshold compaction came after the third call, before the next request.
    // Its result, logged after that turn's end, is filed with it too (trial 41, F11).
    "### Turn 4 · compaction · completed",
    "- **compaction**: compaction started (N of N tokens)",
    "- **compaction**: compacted: N → N tokens",
    "### Turn 5 · completed",
    "#### `view` · success",
    "### Turn 6 · completed",
    "#### `view` · success",
    "### Turn 7 · compaction · completed",
    "- **compaction**: compaction started (N of N tokens)",
    "- **compaction**: compacted: N → N tokens",
    "### Turn 8 · completed",
    "#### `view` · success",
    "### Turn 9 · completed",
    "finished",
    // The -p --resume: the prompt it led to, as `sessions show` draws `— resumed` before it (trial
    // 38 F7: the HTML view pinned it on Prompt 1, as if Prompt 1 had been interrupted).
    "## Prompt 2 · end_turn",
    "- **resume**: session resumed",
    "### Turn 10 · completed",
    "finished",
    // sessions compact: its compaction comes after Prompt 2's answer; its reopen is not drawn
    // (no prompt followed it: src/cli/idle-reopens.ts, as `sessions show` leaves it out).
    "### Turn 11 · compaction · completed",
    "- **compaction**: compaction started (N of N tokens)",
    "- **compaction**: compacted: N → N tokens",
  ]);
  // `sessions show` reads the same order: Prompt 1's stop, the resume, then Prompt 2.
  const shown = await cli(["sessions", "show", sessionId]);
  const landmarks = shown.stdout
    .split("\n")
    .filter((line) => /^\[stop|^— resumed|^> |^compacted/.test(line))
    .map((line) => line.replace(/^(— resumed|compacted:) .*/, "$1"));
  expect(landmarks).toEqual([
    "> read all files",
    "compacted:",
    "compacted:",
    "[stop: end_turn]",
    "— resumed",
    "> and now?",
    "[stop: end_turn]",
    "compacted:",
  ]);
});

// Lane tfa, round 3 session 38: `sessions show` drew a model switch (`model: a → b`) where it
// happened; the view and its exports left it out. Both now read it before the prompt it led to.
test("a model switch is drawn before the prompt it led to, in the view as in sessions show", async ({
  cli,
  model,
}) => {
  model.enqueue({ text: "one" }, { text: "two" });
  const first = await cli(["-p", "first", "--model", "openai-compatible:alt-model"]);
  const sessionId = printedSessionId(first.stderr);
  const configured = ["--model", "openai-compatible:fake-model"];
  const second = await cli(["-p", "second", "--resume", sessionId, "-q", ...configured]);
  expect(second.code).toBe(0);
  const switched = "model: openai-compatible:alt-model → openai-compatible:fake-model";
  const exported = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
  expect(outline(exported.stdout)).toEqual([
    "## Prompt 1 · end_turn",
    "### Turn 1 · completed",
    "## Prompt 2 · end_turn",
    "- **resume**: session resumed",
    `- **model**: ${switched}`,
    "### Turn 2 · completed",
  ]);
  const shown = await cli(["sessions", "show", sessionId]);
  const landmarks = shown.stdout
    .split("\n")
    .filter((line) => /^\[stop|^— resumed|^> |^model:/.test(line))
    .map((line) => line.replace(/^— resumed .*/, "— resumed"));
  expect(landmarks).toEqual([
    "> first",
    "[stop: end_turn]",
    "— resumed",
    switched,
    "> second",
    "[stop: end_turn]",
  ]);
});
