import { expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial 41's verification (F11's remark): `sessions export --format markdown` listed a compaction
// run by `turnloop sessions compact <id>` (another process, after the prompt ended) as one more
// `### Turn` of the previous prompt's section, and nothing said how it was started. It now has a
// `##` heading of its own, after that prompt's section. Real CLI children, a fake model.

const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);
const NO_RETRIES = { TURNLOOP_MAX_RETRIES: "0" };

test("a manual compaction between prompts has a heading of its own naming how it is started", async ({
  cli,
  model,
}) => {
  model.enqueue(
    { text: LONG_ANSWER },
    { text: "two" },
    { text: "Task: count." },
    { text: "three" },
  );
  const first = await cli(["-p", "first"], { env: NO_RETRIES });
  const sessionId = printedSessionId(first.stderr);
  await cli(["-p", "second", "--resume", sessionId], { env: NO_RETRIES });
  const compacted = await cli(["sessions", "compact", sessionId], { env: NO_RETRIES });
  expect(compacted.code, compacted.stderr).toBe(0);
  await cli(["-p", "third", "--resume", sessionId], { env: NO_RETRIES });
  const exported = await cli(["sessions", "export", sessionId, "--format", "markdown"]);
  expect(exported.code, exported.stderr).toBe(0);
  const outline = exported.stdout
    .split("\n")
    .filter((line) => /^(## |### |- \*\*compaction|> )/.test(line))
    .filter((line) => !line.startsWith("> This export"))
    .map((line) => line.replace(/ · \d+ ms · \d+ in \/ \d+ out$/, "").replace(/\d+/g, "N"));
  expect(outline).toEqual([
    "## Prompt N · end_turn",
    "> first",
    "### Turn N · completed",
    "## Prompt N · end_turn",
    "> second",
    "### Turn N · completed",
    "## Compaction · manual, between prompts: `turnloop sessions compact`, `/compact` or an app's `session.history.compact`",
    "### Turn N · compaction · completed",
    "- **compaction** N ms before the request: compaction started (N of N tokens)",
    "- **compaction** at +N ms: compacted: N → N tokens",
    "## Prompt N · end_turn",
    "> third",
    "### Turn N · completed",
  ]);
});
