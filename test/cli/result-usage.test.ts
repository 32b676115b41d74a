import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// `--output-format json`'s `usage` has Claude Code's key names, so it has their meaning on every
// wire: `input_tokens` is the input not read from nor written to the cache, which
// `cache_read_input_tokens` and `cache_creation_input_tokens` count apart; the three add up to
// the whole input. Trial 42 F3: `input_tokens` held the whole input, and a script adding the three
// counted the cached tokens twice. The cost (from the whole input) does not change. The fake
// model says each wire's usage in that wire's own words (OpenAI: `prompt_tokens`/`input_tokens`
// with `cached_tokens` among them; Anthropic: `input_tokens` without the cache's).

const WIRES = ["openai-chat:gpt-4.1", "openai:gpt-5", "anthropic:claude-sonnet-4-5"];

describe("the JSON result's usage", () => {
  test("input_tokens leaves out the cached tokens, on every wire and in stream-json", async ({
    cli,
    model,
  }) => {
    const seen: Record<string, unknown> = {};
    for (const modelId of WIRES) {
      for (const format of ["json", "stream-json"]) {
        model.enqueue({
          text: "done",
          usage: {
            input: 1000,
            output: 10,
            cacheRead: 200,
            ...(modelId.startsWith("anthropic") ? { cacheWrite: 300 } : {}),
          },
        });
        const result = await cli(
          ["--model", modelId, "--base-url", `${model.url}/v1`, "-p", "hi"].concat(
            ["--output-format", format],
            format === "stream-json" ? ["--verbose"] : [],
          ),
          { env: { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-test" } },
        );
        const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "null") as {
          usage: unknown;
          total_cost_usd?: number;
        };
        seen[`${modelId} ${format}`] = { usage: last.usage, cost: last.total_cost_usd };
      }
    }
    // Catalogue prices per million tokens (input, cached input, output; Anthropic's cache
    // writes at 1.25 times input): gpt-4.1 2 / 0.5 / 8, gpt-5 1.25 / 0.125 / 10, Claude Sonnet 4.5
    // 3 / 0.3 / 15.
    const gpt41 = { usage: openAi(), cost: (800 * 2 + 200 * 0.5 + 10 * 8) / 1e6 };
    const gpt5 = { usage: openAi(), cost: (800 * 1.25 + 200 * 0.125 + 10 * 10) / 1e6 };
    const sonnet = {
      usage: {
        input_tokens: 500,
        output_tokens: 10,
        cache_read_input_tokens: 200,
        cache_creation_input_tokens: 300,
      },
      cost: (500 * 3 + 200 * 0.3 + 300 * 3.75 + 10 * 15) / 1e6,
    };
    expect(roundedCosts(seen)).toEqual(
      roundedCosts({
        "openai-chat:gpt-4.1 json": gpt41,
        "openai-chat:gpt-4.1 stream-json": gpt41,
        "openai:gpt-5 json": gpt5,
        "openai:gpt-5 stream-json": gpt5,
        "anthropic:claude-sonnet-4-5 json": sonnet,
        "anthropic:claude-sonnet-4-5 stream-json": sonnet,
      }),
    );
  });
});

/** OpenAI's 1000 input tokens, 200 of them read from the cache. */
function openAi() {
  return { input_tokens: 800, output_tokens: 10, cache_read_input_tokens: 200 };
}

/** Costs to 9 decimals: sums of prices in floating point differ in the last bits. */
function roundedCosts(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      const { usage, cost } = value as { usage: unknown; cost?: number };
      return [key, { usage, cost: cost === undefined ? undefined : Number(cost.toFixed(9)) }];
    }),
  );
}
