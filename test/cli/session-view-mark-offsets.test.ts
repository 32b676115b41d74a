import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { buildSessionView } from "../../src/cli/session-view/fold.js";
import { sessionViewMarkdown } from "../../src/cli/session-view/markdown.js";
import { PAGE_DETAILS_SCRIPT } from "../../src/cli/session-view/page-details.js";

// Session 26's trial (finding 12): `sessions export --format markdown` of a long session marked
// its compactions "at −1 ms": a compaction is logged just before the request of the turn it is
// listed with. A mark before its turn's request (or its prompt) now says so in words.

const at = (ms: number) => new Date(Date.UTC(2026, 0, 4, 0, 0, 0, ms)).toISOString();

/** A prompt whose second request follows a compaction (its own turn, purpose compaction). */
function compactedView() {
  const lines: Array<[number, string, Record<string, unknown>]> = [
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
    [70, "assistant.message", { messageId: "m2", content: "summary", toolRequests: [] }],
    [70, "assistant.turn_end", { turnId: "t2", status: "completed", finishReason: "stop" }],
    [
      71,
      "session.compaction_complete",
      {
        success: true,
        trigger: "threshold",
        preCompactionTokens: 10324,
        postCompactionTokens: 3243,
      },
    ],
    [72, "assistant.turn_start", { turnId: "t3" }],
    [90, "assistant.message", { messageId: "m3", content: "Done.", toolRequests: [] }],
    [95, "assistant.turn_end", { turnId: "t3", status: "completed", finishReason: "stop" }],
  ];
  const events = lines.map(([ms, type, data], index) => ({
    line: index + 1,
    event: { type, data, id: `e${index}`, timestamp: at(ms), parentId: null },
  })) as unknown as Parameters<typeof buildSessionView>[0];
  return buildSessionView(events, []);
}

describe("a mark logged before the request of the turn it is listed with", () => {
  test("the Markdown export says how long before the request, never a negative offset", () => {
    const markdown = sessionViewMarkdown(compactedView());
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
