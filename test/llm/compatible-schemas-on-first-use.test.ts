import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { VERSION } from "@ai-sdk/openai-compatible";
import type {
  LanguageModelV3,
  LanguageModelV3StreamPart,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { compatibleSchemasOnFirstUse } from "../../scripts/compatible-schemas-on-first-use.mjs";
import { CHAT_CHUNK_SHAPE, describeSchema } from "../../src/llm/chat-chunk-check.js";
import {
  CHAT_CHUNK_PACKAGE_VERSION,
  withSyncChunkValidation,
} from "../../src/llm/sync-chunk-validation.js";
import { bundledModule } from "../support/bundled-module.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { ErrorReply, FakeModelServer, RawPiece } from "../support/fake-model-types.js";
import { CHAT_DONE, chatDelta, compatibleModel } from "./helpers.js";

/**
 * Issue 26: turnloop's bundle builds the OpenAI-compatible provider's schemas that a request does
 * not need when they are first used (scripts/compatible-schemas-on-first-use.mjs): the chat
 * model's chunk schema when first read, which src/llm/sync-chunk-validation.ts does only for a
 * chunk the hand check leaves to zod, the error object's and the provider options' when first
 * parsed. The package is bundled here as it is shipped and as the plugin rewrites it; every
 * recorded stream, error answer and set of options must give what the shipped SDK gives alone, and
 * the chunk schema must wait for a chunk that needs it.
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

/** The package's ES module, which the plugin rewrites. */
const PACKAGE_MODULE = createRequire(import.meta.url)
  .resolve("@ai-sdk/openai-compatible")
  .replace(/index\.js$/, "index.mjs");

/** `createOpenAICompatible` of the bundle at `output`. */
async function createOf(output: string): Promise<CreateCompatible> {
  return (
    (await import(pathToFileURL(output).href)) as { createOpenAICompatible: CreateCompatible }
  ).createOpenAICompatible;
}

/** Copies of the package bundled for {@link schemaObjectsMade}, each imported there first. */
const counted = { shipped: "", deferred: "" };

// Bundling takes a while on a loaded machine: the hook's own limit, not a test's.
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-compatible-chunks-"));
  const plugins = [compatibleSchemasOnFirstUse];
  rewritten = await createOf(await bundledModule(directory, "first-use", PACKAGE_MODULE, plugins));
  counted.shipped = await bundledModule(directory, "counted-shipped", PACKAGE_MODULE, []);
  counted.deferred = await bundledModule(directory, "counted-first-use", PACKAGE_MODULE, plugins);
}, 120_000);

/**
 * How many zod schema objects the bundled copy of the package at `output` (zod inside) makes when
 * it loads, and in all once it has made a chat model: zod gives each schema object its `_zod`
 * property with `Object.defineProperty`, counted here while that runs.
 */
async function schemaObjectsMade(output: string) {
  const define = Object.defineProperty;
  let made = 0;
  Object.defineProperty = <T>(target: T, key: PropertyKey, attributes: PropertyDescriptor): T => {
    if (key === "_zod") {
      made += 1;
    }
    return define(target, key, attributes);
  };
  try {
    const create = await createOf(output);
    const atLoad = made;
    create({
      name: "x",
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "k",
      includeUsage: true,
    }).chatModel("m");
    return { atLoad, withModel: made };
  } finally {
    Object.defineProperty = define;
  }
}

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

/** An error as a test compares it: its class, message, cause and the API's answer, if any. */
function errorOf(error: unknown): unknown {
  if (!(error instanceof Error)) {
    return error;
  }
  const { statusCode, responseBody, isRetryable, data } = error as Error & Record<string, unknown>;
  return {
    name: error.name,
    message: error.message,
    cause: String((error as { cause?: unknown }).cause),
    ...{ statusCode, responseBody, isRetryable, data },
  };
}

/** Every stream part `model` makes of one request answered with `reply` (errors by their text). */
async function partsOf(
  model: LanguageModelV3,
  reply: RawPiece[] | ErrorReply,
  providerOptions?: SharedV3ProviderOptions,
): Promise<unknown[]> {
  server?.enqueue(Array.isArray(reply) ? { raw: reply } : reply);
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    includeRawChunks: true,
    ...(providerOptions === undefined ? {} : { providerOptions }),
  });
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) {
    parts.push(part);
  }
  return parts.map((part) =>
    part.type === "error" ? { type: "error", error: errorOf(part.error) } : part,
  );
}

/** What `model`'s request answered by `reply` gives: its stream parts, or the error it throws. */
async function outcomeOf(
  model: LanguageModelV3,
  reply: ErrorReply | RawPiece[],
  providerOptions?: SharedV3ProviderOptions,
): Promise<unknown> {
  try {
    return { parts: await partsOf(model, reply, providerOptions) };
  } catch (error) {
    return { thrown: errorOf(error) };
  }
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

type ChunkSchema = {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } };
};

/** What a parse gives: its data, or its issues. */
function outcome(schema: ChunkSchema, value: unknown) {
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : { issues: result.error?.issues };
}

/** The chunks of {@link REPLIES} that are JSON, and error objects valid and not. */
const CHUNK_VALUES: unknown[] = [
  ...REPLIES.flatMap(([, raw]) =>
    raw.flatMap((piece) => {
      try {
        return typeof piece === "string" ? [JSON.parse(piece.slice("data: ".length))] : [];
      } catch {
        return [];
      }
    }),
  ),
  { error: { message: "overloaded", code: 529, param: null } },
  { error: { type: "server_error" } },
  { error: { message: 3 } },
  "not an object",
];

/** Error answers: the error object the package's schema accepts, and bodies it does not. */
const ERROR_ANSWERS: Array<[string, ErrorReply]> = [
  [
    "an error object",
    { status: 400, body: { error: { message: "bad model", type: "invalid_request", code: 42 } } },
  ],
  ["an error object without a message", { status: 500, body: { error: { type: "server_error" } } }],
  ["JSON of another shape", { status: 503, body: { detail: "overloaded" } }],
  ["not JSON", { status: 502, body: "<html>bad gateway</html>" }],
];

/** Provider options: valid ones (one the schema knows, one it passes through), invalid ones. */
const OPTIONS: Array<[string, SharedV3ProviderOptions]> = [
  [
    "known and unknown options",
    { openaiCompatible: { user: "u-1", reasoningEffort: "high", top_k: 3 } },
  ],
  ["options under the provider's name", { "openai-compatible": { textVerbosity: "low", seed: 7 } }],
  ["an option of the wrong type", { openaiCompatible: { user: 5 } }],
];

describe("the OpenAI-compatible provider's schemas built on first use (issue 26)", () => {
  test("the installed package is the version whose chunk schema the hand check is written for", () => {
    expect(VERSION).toBe(CHAT_CHUNK_PACKAGE_VERSION);
    const { chunkSchema } = compatibleModel("http://127.0.0.1:9/v1") as unknown as {
      chunkSchema: Parameters<typeof describeSchema>[0];
    };
    expect(describeSchema(chunkSchema)).toBe(CHAT_CHUNK_SHAPE);
  });

  test("the rewritten package makes two zod schema objects, the deferred ones, by its chat model", async () => {
    const shipped = await schemaObjectsMade(counted.shipped);
    const deferred = await schemaObjectsMade(counted.deferred);
    expect(deferred).toEqual({ atLoad: 2, withModel: 2 });
    // Not vacuous: the shipped package makes its schemas at both points.
    expect(shipped.atLoad).toBeGreaterThan(20);
    expect(shipped.withModel).toBeGreaterThan(shipped.atLoad + 90);
  });

  test("the rewritten model's chunk schema is built on its first read, once, and parses as the shipped one", () => {
    const model = rewrittenModel("http://127.0.0.1:9/v1");
    const holder = model as unknown as { chunkSchema: unknown };
    const count = countedReads(model);
    expect(count.reads).toBe(0);
    const schema = holder.chunkSchema as ChunkSchema;
    expect(holder.chunkSchema).toBe(schema);
    expect(count.reads).toBe(2);
    const shipped = (
      compatibleModel("http://127.0.0.1:9/v1") as unknown as { chunkSchema: ChunkSchema }
    ).chunkSchema;
    for (const chunk of CHUNK_VALUES) {
      expect(outcome(schema, chunk)).toEqual(outcome(shipped, chunk));
    }
    holder.chunkSchema = "replaced";
    expect(holder.chunkSchema).toBe("replaced");
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

  test.each(ERROR_ANSWERS)(
    "%s answering a request: the shipped SDK's error",
    async (_name, reply) => {
      server = await startFakeModelServer();
      const baseUrl = `${server.url}/v1`;
      const expected = await outcomeOf(compatibleModel(baseUrl), reply);
      const actual = await outcomeOf(
        withSyncChunkValidation(rewrittenModel(baseUrl), VERSION),
        reply,
      );
      expect(actual).toEqual(expected);
      expect(expected).toHaveProperty("thrown.statusCode", reply.status);
    },
  );

  test.each(OPTIONS)("%s: the shipped SDK's request body and result", async (_name, options) => {
    server = await startFakeModelServer();
    const baseUrl = `${server.url}/v1`;
    const reply = [chatDelta({ content: "a" }, "stop"), CHAT_DONE];
    const expected = await outcomeOf(compatibleModel(baseUrl), reply, options);
    const actual = await outcomeOf(rewrittenModel(baseUrl), reply, options);
    expect(actual).toEqual(expected);
    const [shipped, rewrittenBody] = server.requests.map((request) => request.body);
    expect(rewrittenBody).toEqual(shipped);
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
