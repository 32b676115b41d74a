import { expect } from "vitest";
import { UsageTotals } from "../../src/session/usage-totals.js";
import { test } from "../support/fixtures.js";
import { ofType } from "../support/harness.js";

/**
 * How full the context is after `/compact` (the status line's `ctx %`, UsageTotals
 * `contextTokens`): the compaction's own estimate of the next request, which its line shows
 * ("compacted the conversation (manual): 7000 → N tokens"), not the input of the summary request,
 * which carried the whole history; the next request's reported input after that.
 */
test("after a compaction the context is its estimate, then the next request's input", async ({
  openHarness,
}) => {
  const harness = await openHarness({ wire: "openai-chat" });
  const answer = "The first answer, long enough to be worth summarising. ".repeat(20);
  harness.server.enqueue({ text: answer, usage: { input: 6_000, output: 300 } });
  await harness.prompt("first");
  harness.server.enqueue({ text: "two", usage: { input: 7_000, output: 10 } });
  await harness.prompt("second");
  harness.server.enqueue({ text: "Task: count.", usage: { input: 7_200, output: 20 } });
  expect(await harness.session.compact(harness.settings, "")).toMatchObject({ ok: true });
  const [complete] = ofType(harness.events, "session.compaction_complete");
  const estimate = complete?.data.postCompactionTokens;
  expect(estimate).toBeGreaterThan(0);
  expect(estimate).toBeLessThan(7_200);
  expect(UsageTotals.of(harness.events).contextTokens).toBe(estimate);
  harness.server.enqueue({ text: "three", usage: { input: 900, output: 5 } });
  await harness.prompt("third");
  expect(UsageTotals.of(harness.events).contextTokens).toBe(900);
});
