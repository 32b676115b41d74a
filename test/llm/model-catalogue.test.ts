import { calcPrice, waitForUpdate } from "@pydantic/genai-prices";
import { describe, expect, test } from "vitest";
import { CATALOGUE_NAME_CLAUSES } from "../../src/llm/catalogue-name-clauses.js";
import { COMMON_CONTEXT_WINDOWS } from "../../src/llm/common-context-windows.js";
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW } from "../../src/llm/context-window.js";
import {
  catalogueContextWindow,
  inList,
  literalPrefix,
  usageCost,
} from "../../src/llm/model-catalogue.js";

/** A match clause of the catalogue, as its data holds it. */
interface MatchClause {
  or?: MatchClause[];
  and?: MatchClause[];
  equals?: string;
  starts_with?: string;
  ends_with?: string;
  contains?: string;
  regex?: string;
}

describe("the model catalogue (@pydantic/genai-prices)", () => {
  test.each([
    ["anthropic:claude-sonnet-4-5", 200_000],
    ["openai:gpt-5", 400_000],
    ["openai-chat:gpt-4.1", 1_000_000],
    ["openai-compatible:gpt-oss-120b", 131_072],
    ["openai-compatible:my-own-model", DEFAULT_CONTEXT_WINDOW],
  ])("the context window of %s is %i tokens", (modelId, tokens) => {
    expect(contextWindowOf(modelId, {}, {})).toBe(tokens);
  });

  test("the table of common models' windows agrees with the catalogue, model by model", () => {
    const table = Object.entries(COMMON_CONTEXT_WINDOWS).flatMap(([providerId, windows]) =>
      Object.entries(windows).map(([name, tokens]) => ({ providerId, name, tokens })),
    );
    const catalogue = table.map(({ providerId, name }) => ({
      providerId,
      name,
      tokens: calcPrice({ input_tokens: 0, output_tokens: 0 }, name, { providerId })?.model
        .context_window,
    }));
    expect(table.length).toBeGreaterThan(10);
    expect(table).toEqual(catalogue);
  });

  test("TURNLOOP_CONTEXT_WINDOW overrides the catalogue", () => {
    expect(
      contextWindowOf("anthropic:claude-sonnet-4-5", {}, { TURNLOOP_CONTEXT_WINDOW: "32768" }),
    ).toBe(32_768);
    expect(
      contextWindowOf("anthropic:claude-sonnet-4-5", {}, { TURNLOOP_CONTEXT_WINDOW: "lots" }),
    ).toBe(200_000);
  });

  test("prices input, output and cache tokens in USD", () => {
    // gpt-4.1: $2 in, $8 out per million tokens.
    expect(usageCost("openai:gpt-4.1", { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(
      10,
    );
    // Claude Sonnet 4.5 (up to 200k input tokens): $3 in, $15 out, cache reads $0.30, cache
    // writes $3.75 per million; `inputTokens` is the total, cache reads and writes included.
    const cost = usageCost("anthropic:claude-sonnet-4-5", {
      inputTokens: 3_000,
      outputTokens: 1_000,
      cacheReadTokens: 1_000,
      cacheWriteTokens: 1_000,
    });
    expect(cost).toBeCloseTo((1_000 * 3 + 1_000 * 0.3 + 1_000 * 3.75 + 1_000 * 15) / 1e6, 12);
    // Above 200k input tokens the catalogue applies the long-context price tier.
    const long = usageCost("anthropic:claude-sonnet-4-5", {
      inputTokens: 1_000_000,
      outputTokens: 0,
    });
    expect(long).toBeCloseTo(6, 9);
  });

  test("unknown and local models, and usage without token counts, have no cost", () => {
    expect(usageCost("openai-compatible:my-own-model", { inputTokens: 10, outputTokens: 5 })).toBe(
      undefined,
    );
    expect(usageCost("ollama:gpt-oss:20b", { inputTokens: 10, outputTokens: 5 })).toBe(undefined);
    expect(usageCost("openai:gpt-4.1", {})).toBe(undefined);
  });

  test("the table of name tests is the installed catalogue's, kind by kind", async () => {
    const providers = (await waitForUpdate()) ?? [];
    const texts = {
      equals: new Set<string>(),
      startsWith: new Set<string>(),
      endsWith: new Set<string>(),
      contains: new Set<string>(),
      regex: new Set<string>(),
    };
    const collect = (clause: MatchClause | undefined): void => {
      if (clause === undefined) {
        return;
      }
      const all = clause.and ?? [];
      const selective = all.filter((part) => part.regex === undefined);
      for (const part of [...(clause.or ?? []), ...(selective.length > 0 ? selective : all)]) {
        collect(part);
      }
      for (const [kind, text] of [
        ["equals", clause.equals],
        ["startsWith", clause.starts_with],
        ["endsWith", clause.ends_with],
        ["contains", clause.contains],
      ] as const) {
        if (text !== undefined) {
          texts[kind].add(text.toLowerCase());
        }
      }
      if (clause.regex !== undefined) {
        texts.regex.add(clause.regex);
      }
    };
    for (const provider of providers) {
      collect(provider.model_match as MatchClause | undefined);
      for (const model of provider.models) {
        collect(model.match as MatchClause);
      }
    }
    const installed = Object.fromEntries(
      Object.entries(texts).map(([kind, set]) => [kind, [...set].sort().join(" ")]),
    );
    expect(CATALOGUE_NAME_CLAUSES).toEqual(installed);
  });

  test("every model the catalogue knows keeps its window: the name tests hide none", async () => {
    const providers = (await waitForUpdate()) ?? [];
    const names = new Set<string>(CATALOGUE_NAME_CLAUSES.equals.split(" "));
    for (const provider of providers) {
      for (const model of provider.models) {
        names.add(model.id);
      }
    }
    // The names, and variants a user might write: upper case, a suffix, a compact date.
    const asked = [...names].flatMap((name) => [
      name,
      name.toUpperCase(),
      `${name}-custom`,
      `${name}-20250101`,
    ]);
    const expected = asked.map((name) => ({
      name,
      window: calcPrice({ input_tokens: 0, output_tokens: 0 }, name)?.model.context_window,
    }));
    const found = asked.map((name) => ({
      name,
      window: catalogueContextWindow(`openai-compatible:${name}`),
    }));
    expect(found).toEqual(expected);
    // The comparison covers models the catalogue knows and names it does not.
    expect(expected.filter((entry) => entry.window !== undefined).length).toBeGreaterThan(1000);
  });

  test("names only a regular expression accepts keep their window, local names have none", () => {
    // `^o[134]` and the Mistral expression (no literal prefix) accept these; nothing else does.
    const names = ["o1", "o3-mini", "o1-preview", "codestral-latest", "bench-model"];
    const found = names.map((name) => catalogueContextWindow(`openai-compatible:${name}`));
    const expected = names.map(
      (name) => calcPrice({ input_tokens: 0, output_tokens: 0 }, name)?.model.context_window,
    );
    expect(found).toEqual(expected);
    expect(expected.slice(0, 4).every((window) => window !== undefined)).toBe(true);
    expect(expected[4]).toBe(undefined);
  });

  test.each([
    ["^claude-opus-5-\\d{8}$", "claude-opus-5-"],
    ["^composer-2\\.5\\[fast=true\\]$", "composer-2.5[fast=true]"],
    ["^o[134]", "o"],
    ["^abc?", "ab"],
    ["^ab+", "a"],
    ["^ab*", "a"],
    ["^a{2}", ""],
    ["^a\\.?", "a"],
    ["^a\\u0041", "a"],
    ["^(?:x)y", ""],
    ["^x|y", ""],
    ["abc", ""],
    ["^abc", "abc"],
    ["^a\\", "a"],
  ])("every name /%s/ accepts starts with %j", (source, prefix) => {
    expect(literalPrefix(source)).toBe(prefix);
  });

  test("each of the table's expressions accepts only names starting with its literal prefix", async () => {
    const providers = (await waitForUpdate()) ?? [];
    const names = new Set(CATALOGUE_NAME_CLAUSES.equals.split(" "));
    for (const provider of providers) {
      for (const model of provider.models) {
        names.add(model.id.toLowerCase());
      }
    }
    const wrong = CATALOGUE_NAME_CLAUSES.regex.split(" ").flatMap((source) => {
      const prefix = literalPrefix(source);
      const expression = new RegExp(source);
      return [...names]
        .filter((name) => expression.test(name) && !name.startsWith(prefix))
        .map((name) => ({ source, prefix, name }));
    });
    expect(wrong).toEqual([]);
  });

  test("a list of the table holds exactly its space-separated texts", () => {
    const list = "ada gpt-4 o1";
    const asked = ["ada", "gpt-4", "o1", "gpt", "4", "gpt-4 o1", "", " ", "o", "ada gpt-4 o1"];
    expect(asked.filter((text) => inList(list, text))).toEqual(["ada", "gpt-4", "o1"]);
  });
});
