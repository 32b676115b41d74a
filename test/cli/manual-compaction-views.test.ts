import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import { type HeadlessBrowser, launchBrowser, requireBrowser } from "../support/browser.js";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";
import { attributes, texts } from "./session-view-page.js";

// A compaction the user started between prompts (`turnloop sessions compact`, another process,
// after the second prompt ended) was drawn by every view inside that prompt, as if the prompt had
// asked for it. Trial 41's verification (F11's remark) found it in the Markdown export: one more
// `### Turn` of the prompt's section, nothing saying how it was started. `sessions show` drew it
// before the next prompt with nothing setting it apart, the HTML view as one more turn of that
// prompt. Each now sets it apart under the same words. Real CLI children, a fake model, the real
// Chromium.

const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);
const NO_RETRIES = { TURNLOOP_MAX_RETRIES: "0" };
const HEADING =
  "compaction · manual, between prompts: turnloop sessions compact, /compact or an app's session.history.compact";

const hasBrowser = requireBrowser();
let browser: HeadlessBrowser | undefined;

beforeAll(async () => {
  if (hasBrowser) {
    browser = await launchBrowser();
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Two prompts, `sessions compact`, a third prompt: the session's id. */
async function compactedBetweenPrompts({
  cli,
  model,
}: Pick<CliFixtures, "cli" | "model">): Promise<string> {
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
  return sessionId;
}

test("a manual compaction between prompts has a heading of its own naming how it is started", async ({
  cli,
  model,
}) => {
  const sessionId = await compactedBetweenPrompts({ cli, model });
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

test("sessions show and sessions view set a manual compaction between prompts apart", async ({
  cli,
  model,
  home,
}) => {
  const sessionId = await compactedBetweenPrompts({ cli, model });
  const shown = await cli(["sessions", "show", sessionId]);
  expect(shown.code, shown.stderr).toBe(0);
  const lines = shown.stdout
    .split("\n")
    .slice(1)
    .filter((line) => !line.startsWith("One: "))
    .map((line) => line.replace(/\d+/g, "N"));
  expect(lines).toEqual([
    "",
    "> first",
    "[stop: end_turn]",
    "",
    "— resumed N-N-NTN:N:N.NZ",
    "",
    "> second",
    "two",
    "[stop: end_turn]",
    "",
    `— ${HEADING}`,
    "compacted: N → N tokens",
    "summary:",
    "  Task: count.",
    "",
    "— resumed N-N-NTN:N:N.NZ",
    "",
    "> third",
    "three",
    "[stop: end_turn]",
    "",
  ]);

  if (browser === undefined) {
    return;
  }
  const out = join(home, "view.html");
  const viewed = await cli(["sessions", "view", sessionId, "--no-open", "--out", out]);
  expect(viewed.code, viewed.stderr).toBe(0);
  const { page } = await browser.open(pathToFileURL(out).href);
  expect(await attributes(page, "#timeline-rows .row", "class")).toEqual([
    "row prompt-row",
    "row turn-row",
    "row prompt-row",
    "row turn-row",
    "row between-prompts-row",
    "row turn-row",
    "row compaction-row",
    "row prompt-row",
    "row turn-row",
  ]);
  expect(await texts(page, ".between-prompts-row")).toEqual([HEADING.replace(" · ", "")]);
  expect(await attributes(page, ".turn-row", "data-purpose")).toEqual([
    null,
    null,
    "compaction",
    null,
  ]);
  await page.click('.turn-row[data-purpose="compaction"]');
  expect(await texts(page, "#details h2")).toEqual([
    "Turn 3 (manual, between prompts, after prompt 2) · compaction",
  ]);
}, 120_000);
