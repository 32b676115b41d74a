import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { describe, expect, test } from "vitest";
import type { ZodType } from "zod";
import {
  CHAT_CHUNK_SHAPE,
  checkChatChunk,
  describeSchema,
  UNSURE,
} from "../../src/llm/chat-chunk-check.js";

// Issue 26: an OpenAI-compatible chunk is checked by hand where the check is sure, by the AI
// SDK's zod schema otherwise. Where the hand check answers, zod must accept the chunk and return
// the same value: the same keys in the same order, the same undefined values.

const chunkSchema = (
  createOpenAICompatible({ name: "compatible", baseURL: "http://127.0.0.1:9/v1" }).chatModel(
    "model",
  ) as unknown as { chunkSchema: ZodType }
).chunkSchema;

/** `value` as text that keeps key order and tells an undefined property from a missing one. */
function exactly(value: unknown): string {
  if (value === undefined) {
    return "undefined";
  }
  if (Array.isArray(value)) {
    return `[${value.map(exactly).join(",")}]`;
  }
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${exactly((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What zod and the hand check make of `chunk`; the chunk goes through JSON as a stream's would. */
function bothOf(chunk: unknown): { zod: string; hand: string | undefined } {
  const parsed: unknown = JSON.parse(JSON.stringify(chunk));
  const result = chunkSchema.safeParse(parsed);
  const hand = checkChatChunk(JSON.parse(JSON.stringify(chunk)));
  return {
    zod: result.success ? exactly(result.data) : "rejected",
    hand: hand === UNSURE ? undefined : exactly(hand),
  };
}

/** Chunks as servers send them (OpenAI, DeepSeek, vLLM, Ollama, Gemini's compatible endpoint). */
const SERVER_CHUNKS: object[] = [
  {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_733_000_000,
    model: "gpt-4.1",
    system_fingerprint: "fp_1",
    choices: [
      {
        index: 0,
        delta: { role: "assistant", content: "", refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  },
  { id: "c", choices: [{ index: 0, delta: { content: "Hello" }, finish_reason: null }] },
  { id: "c", choices: [{ index: 0, delta: { reasoning_content: "Think", content: null } }] },
  { id: "c", choices: [{ index: 0, delta: { reasoning: "gpt-oss thinks" } }] },
  { id: "c", choices: [{ index: 0, delta: { content: "x", refusal: false } }] },
  { id: "c", choices: [{ index: 0, delta: { refusal: "I can't" } }] },
  { id: "c", choices: [{ index: 0, delta: { role: "" } }] },
  {
    id: "c",
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 0, id: "call_1", type: "function", function: { name: "view", arguments: "" } },
          ],
        },
      },
    ],
  },
  {
    choices: [
      {
        delta: {
          tool_calls: [
            {
              id: "g1",
              function: { name: "view", arguments: '{"path":"a"}' },
              extra_content: { google: { thought_signature: "sig" } },
            },
          ],
        },
      },
    ],
  },
  {
    id: "c",
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"p' } }] } }],
  },
  { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
  {
    id: "c",
    object: "chat.completion.chunk",
    choices: [],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 3,
      total_tokens: 13,
      prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 1,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
      queue_time: 0.01,
    },
  },
  {
    model: "llama3",
    created: 1,
    choices: [{ delta: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 1 },
  },
];

/** A small seeded generator, so a failure names a chunk that can be made again. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const ODD_VALUES: unknown[] = [
  null,
  0,
  1.5,
  -2,
  "",
  "text",
  "assistant",
  true,
  false,
  [],
  {},
  [1],
  { a: 1 },
];

/** `base` with each of its fields, at any depth, perhaps dropped, replaced, or given a sibling. */
function mutated(base: unknown, random: () => number): unknown {
  if (Array.isArray(base)) {
    return base.map((item) => mutated(item, random));
  }
  if (typeof base !== "object" || base === null) {
    return random() < 0.15 ? ODD_VALUES[Math.floor(random() * ODD_VALUES.length)] : base;
  }
  const output: Record<string, unknown> = {};
  const entries = Object.entries(base);
  if (random() < 0.2) {
    entries.reverse();
  }
  for (const [key, value] of entries) {
    const roll = random();
    if (roll < 0.08) {
      continue;
    }
    output[key] =
      roll < 0.16 ? ODD_VALUES[Math.floor(random() * ODD_VALUES.length)] : mutated(value, random);
  }
  if (random() < 0.1) {
    output[random() < 0.5 ? "extra" : "index"] = random() < 0.5 ? 7 : { nested: [1] };
  }
  return output;
}

describe("an OpenAI-compatible chunk checked by hand (issue 26)", () => {
  test("the installed AI SDK's chunk schema is the one the hand check is written for", () => {
    expect(describeSchema(chunkSchema)).toBe(CHAT_CHUNK_SHAPE);
  });

  test.each(SERVER_CHUNKS.map((chunk) => [JSON.stringify(chunk).slice(0, 70), chunk]))(
    "%s: checked by hand, to zod's value",
    (_name, chunk) => {
      const { zod, hand } = bothOf(chunk);
      expect(zod).not.toBe("rejected");
      expect(hand).toBe(zod);
    },
  );

  test("10,000 altered chunks: where the hand check answers, zod accepts and returns the same value", () => {
    const random = generator(26);
    let answered = 0;
    let rejectedByZod = 0;
    const differing: unknown[] = [];
    for (let index = 0; index < 10_000; index++) {
      const base = SERVER_CHUNKS[index % SERVER_CHUNKS.length];
      const chunk = mutated(base, random);
      const { zod, hand } = bothOf(chunk);
      rejectedByZod += zod === "rejected" ? 1 : 0;
      if (hand !== undefined) {
        answered++;
        if (hand !== zod) {
          differing.push({ chunk, zod, hand });
        }
      }
    }
    expect(differing.slice(0, 3)).toEqual([]);
    // Not vacuous: many chunks were answered by hand, and many were refused by zod.
    expect(answered).toBeGreaterThan(1_000);
    expect(rejectedByZod).toBeGreaterThan(1_000);
  });

  test("chunks it leaves to zod: the error object, content as parts, a number too large", () => {
    for (const text of [
      '{"error":{"message":"overloaded","type":"server_error"}}',
      '{"choices":[{"delta":{"content":[{"type":"text","text":"a"}]}}]}',
      '{"choices":[],"created":1e400}',
      '{"choices":[{"delta":{"role":"user"}}]}',
    ]) {
      expect(checkChatChunk(JSON.parse(text))).toBe(UNSURE);
    }
  });
});
