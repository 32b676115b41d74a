/**
 * Context windows (tokens) of the models most runs use, copied from the model catalogue
 * (`@pydantic/genai-prices` 0.1.8, llm/model-catalogue.ts), so that looking them up does not load
 * the catalogue (about 0.5 MiB of source and 20 MiB of memory; issue 26). Keyed by the catalogue's
 * provider id, then by the model name exactly as given after the `provider:` prefix. A name not
 * here is looked up in the catalogue itself. test/llm/model-catalogue.test.ts checks every entry
 * against the catalogue, so a catalogue update that changes one fails there.
 */
export const COMMON_CONTEXT_WINDOWS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  anthropic: {
    "claude-opus-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-3-7-sonnet-latest": 200_000,
    "claude-3-5-haiku-latest": 200_000,
  },
  openai: {
    "gpt-5.1": 400_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "gpt-5-codex": 400_000,
    "gpt-4.1": 1_000_000,
    "gpt-4.1-mini": 1_000_000,
    "gpt-4.1-nano": 1_000_000,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    o3: 200_000,
    "o4-mini": 200_000,
  },
};
