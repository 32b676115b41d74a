import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { bodyReadOnce } from "../../scripts/provider-utils-as-bundled.mjs";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { oneStageJsonEvents } from "../../scripts/provider-utils-one-stage-events.mjs";
import { bundledModule, providerUtilsRewritten } from "../support/bundled-module.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, RawPiece, Reply } from "../support/fake-model-types.js";

// Issue 26, round 3 session 28 (figure 7d): the bundle's provider-utils hands a streamed reply's
// body to the event parser itself, with the error mapping of its `wrapResponseBodyStream`, instead
// of through that wrapper's stream (scripts/provider-utils-as-bundled.mjs, `bodyReadOnce`). The
// OpenAI-compatible and Anthropic models, each bundled with provider-utils as the bundle had it
// before (events parsed in one stage) and with the change too, must make the same stream parts and
// the same errors of the same replies, whole or broken off, over real HTTP; and the changed one
// makes one web stream fewer for each reply.

/** esbuild's plugin giving provider-utils the one-stage parser, and with `readOnce` the change. */
function providerUtils(readOnce: boolean) {
  return providerUtilsRewritten(readOnce ? "body-read-once" : "one-stage-events", (text, path) => {
    const oneStage = oneStageJsonEvents(text, path);
    return readOnce ? bodyReadOnce(oneStage, path) : oneStage;
  });
}

type Variant = "before" | "changed";
type Packages = {
  compatible: typeof import("@ai-sdk/openai-compatible");
  anthropic: typeof import("@ai-sdk/anthropic");
};

let directory: string;
const packages = {} as Record<Variant, Packages>;

const entryOf = (name: string) =>
  fileURLToPath(new URL(`../../node_modules/${name}/dist/index.mjs`, import.meta.url));

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "body-read-once-"));
  const entry = join(directory, "packages.mjs");
  await writeFile(
    entry,
    [
      `export * as compatible from ${JSON.stringify(entryOf("@ai-sdk/openai-compatible"))};`,
      `export * as anthropic from ${JSON.stringify(entryOf("@ai-sdk/anthropic"))};`,
      "",
    ].join("\n"),
  );
  for (const variant of ["before", "changed"] as const) {
    const file = await bundledModule(directory, variant, entry, [
      providerUtils(variant === "changed"),
    ]);
    packages[variant] = await import(pathToFileURL(file).href);
  }
}, 240_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Wire = "openai-chat" | "anthropic";

function modelOf(variant: Variant, wire: Wire, baseURL: string): LanguageModelV3 {
  const { compatible, anthropic } = packages[variant];
  return wire === "openai-chat"
    ? compatible
        .createOpenAICompatible({ name: "fake", apiKey: "test-key", baseURL })
        .chatModel("m")
    : anthropic.createAnthropic({ apiKey: "test-key", baseURL })("claude-fake");
}

/**
 * Every stream part of one request answered with `reply`, and how reading ended (a failure of
 * the stream, or of `doStream` itself), comparable across variants; and how many web streams the
 * global `ReadableStream` made meanwhile (the bundled packages reach it by name: the fetch's own
 * body and Node's stream internals do not count).
 */
async function partsOf(model: LanguageModelV3, reply: Reply) {
  server?.enqueue(reply);
  const original = globalThis.ReadableStream;
  let made = 0;
  globalThis.ReadableStream = class extends original<unknown> {
    constructor(...args: ConstructorParameters<typeof ReadableStream>) {
      super(...args);
      made += 1;
    }
  } as typeof ReadableStream;
  const parts: unknown[] = [];
  try {
    const { stream } = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    for await (const part of stream as AsyncIterable<LanguageModelV3StreamPart>) {
      parts.push(comparable(part));
    }
  } catch (error) {
    parts.push({ failed: comparable(error) });
  } finally {
    globalThis.ReadableStream = original;
  }
  return { parts, made };
}

/** Fields holding the fake server's clock (in seconds: it may tick between the two requests). */
const CLOCK_FIELDS = new Set(["timestamp", "created", "created_at"]);

/** `value` as JSON: an error as its class, message, retry flag and cause. */
function comparable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, each: unknown) => {
      if (CLOCK_FIELDS.has(key)) {
        return "<timestamp>";
      }
      if (each instanceof Error) {
        const { isRetryable, statusCode } = each as { isRetryable?: boolean; statusCode?: number };
        const cause =
          each.cause instanceof Error ? `${each.cause.name}: ${each.cause.message}` : each.cause;
        return { name: each.name, message: each.message, isRetryable, statusCode, cause };
      }
      return each;
    }),
  );
}

const sse = (event: string | undefined, data: object) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;

const CHAT_START = sse(undefined, {
  id: "c1",
  choices: [{ index: 0, delta: { role: "assistant", content: "He" } }],
});

const MESSAGE_START = sse("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-fake",
    content: [],
    stop_reason: null,
    usage: { input_tokens: 3, output_tokens: 0 },
  },
});

const REPLIES: Record<Wire, Array<[string, Reply]>> = {
  "openai-chat": [
    [
      "text, a tool call and usage",
      {
        text: ["Hello ", "world"],
        toolCalls: [{ id: "call_1", name: "lookup", arguments: ['{"key"', ':"a"}'] }],
        usage: { input: 12, output: 7 },
      },
    ],
    ["a body reset mid-reply", { raw: [CHAT_START, { reset: true }] satisfies RawPiece[] }],
    ["a body that ends mid-event", { raw: [CHAT_START, 'data: {"id":'] satisfies RawPiece[] }],
  ],
  anthropic: [
    [
      "text, a tool call and usage",
      {
        text: ["Hello ", "world"],
        toolCalls: [{ id: "toolu_1", name: "lookup", arguments: ['{"key"', ':"a"}'] }],
        usage: { input: 12, output: 7 },
      },
    ],
    ["a body reset mid-reply", { raw: [MESSAGE_START, { reset: true }] satisfies RawPiece[] }],
  ],
};

describe("a streamed reply's body read by the parser itself", () => {
  for (const [wire, replies] of Object.entries(REPLIES) as Array<[Wire, Array<[string, Reply]>]>) {
    for (const [name, reply] of replies) {
      test(`${wire}: ${name}: the same parts and errors, without the wrapper's stream`, async () => {
        const runs = [];
        for (const variant of ["before", "changed"] as const) {
          // A server each, so that both replies get the same ids.
          server = await startFakeModelServer();
          runs.push(await partsOf(modelOf(variant, wire, `${server.url}/v1`), reply));
          await server.close();
          server = undefined;
        }
        const [before, changed] = runs;
        expect(changed?.parts).toEqual(before?.parts);
        expect(before?.parts.length).toBeGreaterThan(1);
        // The wrapper's stream, once per reply before, is not made (the rest are the fetch's and
        // the model's own, the same in both).
        expect(changed?.made).toBe((before?.made ?? 0) - 1);
      });
    }
  }
});
