import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { buildSessionView } from "../../src/cli/session-view/fold.js";
import { sessionViewMarkdown } from "../../src/cli/session-view/markdown.js";
import { PAGE_DETAILS_SCRIPT } from "../../src/cli/session-view/page-details.js";

// Session 26's trial (finding 12): `sessions export --format markdown` of a long session marked
// its compactions "at −1 ms": a compaction is logged just before the request of the turn it is
// listed with. A mark before its turn's request (or its prompt) now says so in words.

const at = (ms: number) => new Date(Date.UTC(2026, 0, 4, 0, 0, 0, ms)).toISOString();

/** A log's events, each `[ms after the start, type, data]`, and the session view built from them. */
type TimedEvents = Array<[number, string, Record<string, unknown>]>;

/**
 * A prompt whose second request follows an automatic compaction (its own turn, purpose
 * compaction), the compaction's result and summary logged after that turn's end.
 */
const AUTOMATIC_COMPACTION: TimedEvents = [
  [0, "user.message", { content: "go on", source: "user" }],
  [10, "assistant.turn_start", { turnId: "t1" }],
  [40, "assistant.message", { messageId: "m1", content: "Looking.", toolRequests: [] }],
  [50, "assistant.turn_end", { turnId: "t1", status: "completed", finishReason: "stop" }],
  [
    51,
    "session.compaction_start",
    { trigger: "threshold", currentTokens: 10324, tokenLimit: 12000 },
  ],
  [57, "assistant.turn_start", { turnId: "t2", purpose: "compaction" }],
  [70, "assistant.message", { messageId: "m2", content: "summary one", toolRequests: [] }],
  [70, "assistant.turn_end", { turnId: "t2", status: "completed", finishReason: "stop" }],
  [
    71,
    "session.compaction_complete",
    {
      success: true,
      trigger: "threshold",
      preCompactionTokens: 10324,
      postCompactionTokens: 3243,
      summaryContent: "summary one",
    },
  ],
  [72, "assistant.turn_start", { turnId: "t3" }],
  [90, "assistant.message", { messageId: "m3", content: "Done.", toolRequests: [] }],
  [
    95,
    "assistant.turn_end",
    { turnId: "t3", status: "completed", finishReason: "stop", stopReason: "end_turn" },
  ],
];

/** The session view of `lines` (fold.ts, as `sessions view` and the exports build it). */
function viewOf(lines: TimedEvents) {
  const events = lines.map(([ms, type, data], index) => ({
    line: index + 1,
    event: { type, data, id: `e${index}`, timestamp: at(ms), parentId: null },
  })) as unknown as Parameters<typeof buildSessionView>[0];
  return buildSessionView(events, []);
}

describe("a mark logged before the request of the turn it is listed with", () => {
  test("the Markdown export says how long before the request, never a negative offset", () => {
    const markdown = sessionViewMarkdown(viewOf(AUTOMATIC_COMPACTION));
    expect(markdown.split("\n").filter((line) => line.startsWith("- **"))).toEqual([
      "- **compaction** 6 ms before the request: compaction started (10324 of 12000 tokens)",
      // Its result, logged after the compaction turn's end, is that turn's (trial 41, F11).
      "- **compaction** at +14 ms: compacted: 10324 → 3243 tokens",
    ]);
    expect(markdown).not.toContain("−");
  });

  test("the page's details say it the same way", () => {
    const formatOffset = runInNewContext(
      `function formatDuration(ms) { return Math.round(ms) + " ms"; }\n${PAGE_DETAILS_SCRIPT}\nformatOffset`,
      {},
    ) as (ms: number) => string;
    expect([formatOffset(-6), formatOffset(0), formatOffset(12)]).toEqual([
      "6 ms before the request",
      "+0 ms",
      "+12 ms",
    ]);
  });
});

// Trial 41 (F11): the Markdown export filed an automatic compaction's result ("compacted: A → B
// tokens" and its summary) under the next turn, "1 ms before the request", and a manual one
// (`sessions compact`, another process, after the prompt's last turn) in the prompt's closing
// marks, timed from that prompt's start. Each compaction's marks now go with its own turn.

/** A prompt with an automatic compaction, then a manual one from another process, then a prompt. */
function compactedTwice() {
  const lines: TimedEvents = [
    ...AUTOMATIC_COMPACTION,
    // `turnloop sessions compact <id>`, nine seconds later, in another process.
    [9000, "session.resume", { resumeTime: at(9000), eventCount: 12, repaired: [] }],
    [
      9008,
      "session.compaction_start",
      { trigger: "manual", currentTokens: 3533, tokenLimit: 12000 },
    ],
    [9020, "assistant.turn_start", { turnId: "t4", purpose: "compaction" }],
    [9030, "assistant.message", { messageId: "m4", content: "summary two", toolRequests: [] }],
    [9031, "assistant.turn_end", { turnId: "t4", status: "completed", finishReason: "stop" }],
    [
      9033,
      "session.compaction_complete",
      {
        success: true,
        trigger: "manual",
        preCompactionTokens: 3533,
        postCompactionTokens: 1219,
        summaryContent: "summary two",
      },
    ],
    [12000, "session.resume", { resumeTime: at(12000), eventCount: 19, repaired: [] }],
    [12010, "user.message", { content: "next", source: "user" }],
    [12020, "assistant.turn_start", { turnId: "t5" }],
    [12030, "assistant.message", { messageId: "m5", content: "Next.", toolRequests: [] }],
    [
      12040,
      "assistant.turn_end",
      { turnId: "t5", status: "completed", finishReason: "stop", stopReason: "end_turn" },
    ],
  ];
  return viewOf(lines);
}

describe("the Markdown export's compactions", () => {
  test("each compaction's start and result are filed under its own turn, timed from its request; a manual one under its own heading", () => {
    const markdown = sessionViewMarkdown(compactedTwice());
    const outline = markdown
      .split("\n")
      .filter((line) => /^(## |### |- \*\*)/.test(line))
      .map((line) => line.replace(/ · \d+ ms · .*$/, ""));
    expect(outline).toEqual([
      "## Prompt 1 · end_turn",
      "### Turn 1 · completed",
      "### Turn 2 · compaction · completed",
      "- **compaction** 6 ms before the request: compaction started (10324 of 12000 tokens)",
      "- **compaction** at +14 ms: compacted: 10324 → 3243 tokens",
      "### Turn 3 · completed",
      // Not one more turn of prompt 1: a heading of its own (trial 41's verification).
      "## Compaction · manual, between prompts: `turnloop sessions compact`, `/compact` or an app's `session.history.compact`",
      "### Turn 4 · compaction · completed",
      "- **compaction** 12 ms before the request: compaction started (3533 of 12000 tokens)",
      "- **compaction** at +13 ms: compacted: 3533 → 1219 tokens",
      "## Prompt 2 · end_turn",
      "- **resume** 10 ms before the prompt: session resumed",
      "### Turn 5 · completed",
    ]);
  });
});
