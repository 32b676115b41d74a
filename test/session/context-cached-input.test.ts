import { describe, expect } from "vitest";
import { UsageTotals } from "../../src/session/usage-totals.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";

/**
 * How full the context is (the status line's `ctx %`, UsageTotals `contextTokens`) is the last
 * request's whole input as `assistant.usage` records it, the cached part counted once: a trial saw
 * `ctx 12%` of a 20,000-token window for 1.3k tokens of input, the cache reads added twice.
 */
describe.for([
  ["openai-chat", { input: 1_300, output: 5, cacheRead: 1_000 }, 1_300],
  ["openai-responses", { input: 1_300, output: 5, cacheRead: 1_000 }, 1_300],
  ["anthropic", { input: 1_300, output: 5, cacheRead: 700, cacheWrite: 300 }, 1_300],
] as const)(
  "%s: the context is the whole input, cache reads counted once",
  ([wire, usage, whole]) => {
    test("after a reply read partly from the cache", async ({ openHarness }) => {
      const harness = await openHarness({ wire: wire satisfies Wire });
      harness.server.enqueue({ text: "ok", usage });
      expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
      const totals = UsageTotals.of(harness.events);
      expect([totals.inputTokens, totals.cacheReadTokens, totals.contextTokens]).toEqual([
        whole,
        usage.cacheRead,
        whole,
      ]);
    });
  },
);
