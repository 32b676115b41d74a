import { expect } from "vitest";
import { usageText } from "../../src/session/commands.js";
import { UsageTotals } from "../../src/session/usage-totals.js";
import { test } from "../support/fixtures.js";

/**
 * `/usage` counts the input written to Anthropic's prompt cache beside what was read from it: the
 * cost includes both at their own rates, and the line left the writes out (trial r3s46 F6).
 */
test("/usage on the Anthropic wire names cache reads and cache writes", async ({ openHarness }) => {
  const harness = await openHarness({ wire: "anthropic", model: "anthropic:claude-sonnet-4-5" });
  harness.server.enqueue({
    text: "ok",
    usage: { input: 1_000, output: 50, cacheRead: 200, cacheWrite: 300 },
  });
  expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
  // claude-sonnet-4-5: $3 per million input, $0.30 read, $3.75 written, $15 output.
  expect(usageText(UsageTotals.of(harness.events))).toBe(
    [
      "turns:          1",
      "input tokens:   1000 (200 read from cache, 300 written to cache)",
      "output tokens:  50",
      "cost:           $0.0034",
    ].join("\n"),
  );
});
