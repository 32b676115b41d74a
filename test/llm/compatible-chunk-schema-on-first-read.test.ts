import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { VERSION } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { compatibleChunkSchemaOnFirstRead } from "../../scripts/compatible-chunk-schema-on-first-read.mjs";
import { CHAT_CHUNK_SHAPE, describeSchema } from "../../src/llm/chat-chunk-check.js";
import {
  CHAT_CHUNK_PACKAGE_VERSION,
  withSyncChunkValidation,
} from "../../src/llm/sync-chunk-validation.js";
import { bundledModule } from "../support/bundled-module.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, RawPiece } from "../support/fake-model-types.js";
import { CHAT_DONE, chatDelta, compatibleModel } from "./helpers.js";

/**
 * Issue 26: turnloop's bundle builds the OpenAI-compatible chat model's chunk schema when it is
 * first read (scripts/compatible-chunk-schema-on-first-read.mjs), and src/llm/sync-chunk-validation.ts
 * reads it only for a chunk the hand check leaves to zod. The package is bundled here as it is
 * shipped and as the plugin rewrites it; every recorded stream must give the stream parts the
 * shipped SDK gives alone, and the schema must wait for a chunk that needs it.
 */

type CreateCompatible = (settings: {
  name: string;
  baseURL: string;
  apiKey: string;
  includeUsage: boolean;
}) => { chatModel(modelId: string): LanguageModelV3 };

let directory: string;
let rewritten: CreateCompatible;
let server: FakeModelServer | undefined;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-compatible-chunks-"));
  const module = createRequire(import.meta.url).resolve("@ai-sdk/openai-compatible");
  const output = await bundledModule(
    directory,
    "first-read",
    module.replace(/index\.js$/, "index.mjs"),
    [compatibleChunkSchemaOnFirstRead],
  );
  ({ createOpenAICompatible: rewritten } = (await import(pathToFileURL(output).href)) as {
    createOpenAICompatible: CreateCompatible;
  });
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The rewritten package's chat model `fake-model` at `baseUrl`, as helpers.ts makes the shipped one. */
function rewrittenModel(baseUrl: string): LanguageModelV3 {
  return rewritten({
    name: "openai-compatible",
    baseURL: baseUrl,
    apiKey: "test-key",
    includeUsage: true,
  }).chatModel("fake-model");
}

/**
 * Counts the reads of `model`'s chunk schema accessor (the rewritten package's own, wrapped): a
 * schema never read is never built.
 */
function countedReads(model: LanguageModelV3): { reads: number } {
  const accessor = Object.getOwnPropertyDescriptor(model, "chunkSchema");
  const read = accessor?.get;
  if (accessor === undefined || read === undefined) {
    throw new Error("the rewritten model's chunkSchema is not an accessor");
  }
  const count = { reads: 0 };
  Object.defineProperty(model, "chunkSchema", {
    ...accessor,
    get() {
      count.reads += 1;
      return read.call(model);
    },
  });
  return count;
}

/** Every stream part `model` makes of one request answered with `raw` (errors by their text). */
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

const SURE_REPLY: RawPiece[] = [
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
];

const REPLIES: Array<[string, RawPiece[]]> = [
  ["text, reasoning, a tool call and usage", SURE_REPLY],
  [
    "a chunk the chunk schema rejects",
    [
      chatDelta({ content: "Hel" }),
      `data: ${JSON.stringify({ id: 7, choices: [{ index: 0, delta: { content: 3 } }] })}\n\n`,
      chatDelta({ content: "lo" }, "stop"),
      CHAT_DONE,
    ],
  ],
  [
    "content given as parts",
    [chatDelta({ content: [{ type: "text", text: "a" }] }), chatDelta({}, "stop"), CHAT_DONE],
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

describe("the OpenAI-compatible chunk schema built on first read (issue 26)", () => {
  test("the installed package is the version whose chunk schema the hand check is written for", () => {
    expect(VERSION).toBe(CHAT_CHUNK_PACKAGE_VERSION);
    const { chunkSchema } = compatibleModel("http://127.0.0.1:9/v1") as unknown as {
      chunkSchema: Parameters<typeof describeSchema>[0];
    };
    expect(describeSchema(chunkSchema)).toBe(CHAT_CHUNK_SHAPE);
  });

  test("the rewritten model's chunk schema is built once, on its first read, as the shipped one", () => {
    const model = rewrittenModel("http://127.0.0.1:9/v1");
    const count = countedReads(model);
    expect(count.reads).toBe(0);
    const { chunkSchema } = model as unknown as {
      chunkSchema: Parameters<typeof describeSchema>[0];
    };
    expect(describeSchema(chunkSchema)).toBe(CHAT_CHUNK_SHAPE);
    expect((model as unknown as { chunkSchema: unknown }).chunkSchema).toBe(chunkSchema);
    expect(count.reads).toBe(2);
    (model as unknown as { chunkSchema: unknown }).chunkSchema = "replaced";
    expect((model as unknown as { chunkSchema: unknown }).chunkSchema).toBe("replaced");
    expect(count.reads).toBe(2);
  });

  test.each(REPLIES)("%s: the same stream parts as the shipped SDK alone", async (_name, raw) => {
    server = await startFakeModelServer();
    const baseUrl = `${server.url}/v1`;
    const expected = await partsOf(compatibleModel(baseUrl), raw);
    const checked = await partsOf(withSyncChunkValidation(rewrittenModel(baseUrl), VERSION), raw);
    // Another version: every chunk is left to zod's schema, built on first read.
    const unknown = await partsOf(withSyncChunkValidation(rewrittenModel(baseUrl), "0.0.0"), raw);
    expect(checked).toEqual(expected);
    expect(unknown).toEqual(expected);
    expect(expected.length).toBeGreaterThan(3);
  });

  test("a reply the hand check is sure of builds no schema; the error object builds it once", async () => {
    server = await startFakeModelServer();
    const model = rewrittenModel(`${server.url}/v1`);
    const count = countedReads(model);
    const checked = withSyncChunkValidation(model, VERSION);
    expect((await partsOf(checked, SURE_REPLY)).length).toBeGreaterThan(3);
    expect(count.reads).toBe(0);
    const [, , , , withError] = REPLIES;
    await partsOf(checked, withError?.[1] ?? []);
    expect(count.reads).toBe(1);
  });
});
