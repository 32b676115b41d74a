import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, test } from "vitest";
import { withSyncChunkValidation } from "../../src/llm/sync-chunk-validation.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, RawPiece } from "../support/fake-model-types.js";
import { CHAT_DONE, chatDelta, compatibleModel } from "./helpers.js";

// Issue 26 (relay): OpenAI-compatible chunks are checked with zod's synchronous parse. The schema
// is the AI SDK's own, so every stream part, valid chunk or not, must be what the SDK gives alone.

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every stream part `model` makes of one request answered with `raw`. */
async function partsOf(model: LanguageModelV3, raw: RawPiece[]): Promise<unknown[]> {
  server?.enqueue({ raw });
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    includeRawChunks: true,
  });
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) {
    parts.push(part);
  }
  // An error part holds an Error: compared by its class, message and cause's issues.
  return parts.map((part) =>
    part.type === "error" && part.error instanceof Error
      ? {
          type: "error",
          name: part.error.name,
          message: part.error.message,
          cause: String((part.error as { cause?: unknown }).cause),
        }
      : part,
  );
}

const REPLIES: Array<[string, RawPiece[]]> = [
  [
    "text, reasoning, a tool call and usage",
    [
      chatDelta({ role: "assistant", reasoning_content: "Think " }),
      chatDelta({ content: "Hello " }),
      chatDelta({ content: "world", refusal: false }),
      chatDelta({
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      }),
      `data: ${JSON.stringify({
        id: "c1",
        choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      })}\n\n`,
      CHAT_DONE,
    ],
  ],
  [
    "a chunk the chunk schema rejects",
    [
      chatDelta({ content: "Hel" }),
      `data: ${JSON.stringify({ id: 7, choices: [{ index: 0, delta: { content: 3 } }] })}\n\n`,
      chatDelta({ content: "lo" }, "stop"),
      CHAT_DONE,
    ],
  ],
  ["a chunk that is not JSON", [chatDelta({ content: "a" }), "data: {nope\n\n", CHAT_DONE]],
  [
    "an error object in the stream",
    [
      chatDelta({ content: "a" }),
      `data: ${JSON.stringify({ error: { message: "overloaded", type: "server_error" } })}\n\n`,
      CHAT_DONE,
    ],
  ],
];

describe("OpenAI-compatible chunks checked synchronously (issue 26)", () => {
  test.each(REPLIES)("%s: the same stream parts as the AI SDK alone", async (_name, raw) => {
    server = await startFakeModelServer();
    const baseUrl = `${server.url}/v1`;
    const expected = await partsOf(compatibleModel(baseUrl), raw);
    const actual = await partsOf(withSyncChunkValidation(compatibleModel(baseUrl)), raw);
    expect(actual).toEqual(expected);
    // Not vacuous: the reply produced parts beyond the stream's start.
    expect(expected.length).toBeGreaterThan(3);
  });

  test("the model's chunk schema becomes an AI SDK schema object whose check is synchronous", () => {
    const model = withSyncChunkValidation(compatibleModel("http://127.0.0.1:9/v1")) as unknown as {
      chunkSchema: object;
    };
    const first = model.chunkSchema;
    expect(Object.getOwnPropertySymbols(first).map(String)).toEqual(["Symbol(vercel.ai.schema)"]);
    const validate = (first as { validate: (value: unknown) => unknown }).validate;
    // Synchronous: a result, not a promise.
    expect(validate({ choices: [] })).toEqual({
      success: true,
      value: { choices: [] },
    });
  });

  test("chunks the hand check is sure of never reach zod's parse; the error object does", async () => {
    server = await startFakeModelServer();
    const model = compatibleModel(`${server.url}/v1`);
    // The SDK's own zod schema, its parses counted (the package's object, not ours).
    const schema = (model as unknown as { chunkSchema: { safeParse(value: unknown): unknown } })
      .chunkSchema;
    const parse = schema.safeParse.bind(schema);
    let parses = 0;
    schema.safeParse = (value: unknown) => {
      parses += 1;
      return parse(value);
    };
    const checked = withSyncChunkValidation(model);
    const [common, , , withError] = REPLIES;
    const parts = await partsOf(checked, common?.[1] ?? []);
    expect(parts.length).toBeGreaterThan(3);
    expect(parses).toBe(0);
    await partsOf(checked, withError?.[1] ?? []);
    expect(parses).toBe(1);
  });
});
