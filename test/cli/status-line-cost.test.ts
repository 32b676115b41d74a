import { expect } from "vitest";
import { StatusLine } from "../../src/cli/interactive/status-line.js";
import { createTheme } from "../../src/cli/interactive/theme.js";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import { costText, UsageTotals } from "../../src/session/usage-totals.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES } from "../support/harness.js";

/**
 * A cost that covers only some requests (a switch to a model with no price) is said as partial
 * in the status line as in `/usage` and `-p`'s summary ("for 1 of 2 requests"), never as the
 * whole cost (trial r3s46 F4).
 */
test("after a switch to a model with no price, the status line says the cost is partial", async ({
  openHarness,
}) => {
  const harness = await openHarness({ wire: "openai-chat", model: "openai-chat:gpt-4.1" });
  harness.server.enqueue(
    { text: "priced", usage: { input: 1_000, output: 50 } },
    { text: "unpriced", usage: { input: 1_000, output: 50 } },
  );
  expect(await harness.prompt("one")).toEqual({ stopReason: "end_turn" });
  const resolved = resolveModel(
    { model: "openai-chat:local-model", baseUrl: `${harness.server.url}/v1` },
    { OPENAI_API_KEY: "test-key" },
  );
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  harness.settings.provider = createProvider(resolved.configuration, FAST_RETRIES);
  expect(await harness.prompt("two")).toEqual({ stopReason: "end_turn" });

  const usage = UsageTotals.of(harness.events);
  const line = new StatusLine(createTheme(false), {
    model: "openai-chat:local-model",
    mode: "ask",
    usage,
    contextWindow: undefined,
  });
  // gpt-4.1: $2 per million input tokens, $8 per million output tokens.
  expect(costText(usage)).toBe("$0.0024 for 1 of 2 requests");
  expect(line.render(300)[0]?.split("  ").filter(Boolean).at(-1)?.trim()).toBe(
    "openai-chat:local-model · ask · ctx 1.0k · 2.0k in 100 out · $0.0024 for 1 of 2 requests",
  );
});
