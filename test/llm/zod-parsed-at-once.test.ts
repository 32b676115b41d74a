import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { zodParsedAtOnce } from "../../scripts/provider-utils-as-bundled.mjs";
import { bundledModule, providerUtilsRewritten } from "../support/bundled-module.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, RawPiece, Reply, Wire } from "../support/fake-model-types.js";

// Issue 26, round 3 session 24: the bundle's provider-utils validates with zod's synchronous parse
// where zod can (scripts/provider-utils-as-bundled.mjs, `zodParsedAtOnce`). The OpenAI chat and
// Responses models and the Anthropic model, each bundled with provider-utils as shipped and as
// changed, must send the same request bodies (provider options go through zod) and make the same
// stream parts of the same replies, valid chunks or not.

/** esbuild's plugin applying the change alone to provider-utils. */
const changedProviderUtils = providerUtilsRewritten("zod-parsed-at-once", zodParsedAtOnce);

type Variant = "shipped" | "changed";
type Packages = {
  openai: typeof import("@ai-sdk/openai");
  anthropic: typeof import("@ai-sdk/anthropic");
  utils: typeof import("@ai-sdk/provider-utils");
};

let directory: string;
const packages = {} as Record<Variant, Packages>;

/** A package's ES module entry in the repository's node_modules. */
const entryOf = (name: string) =>
  fileURLToPath(new URL(`../../node_modules/${name}/dist/index.mjs`, import.meta.url));

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "zod-parsed-at-once-"));
  // One bundle per variant (the three packages share one copy of zod and provider-utils there).
  const entry = join(directory, "packages.mjs");
  await writeFile(
    entry,
    [
      `export * as openai from ${JSON.stringify(entryOf("@ai-sdk/openai"))};`,
      `export * as anthropic from ${JSON.stringify(entryOf("@ai-sdk/anthropic"))};`,
      `export * as utils from ${JSON.stringify(entryOf("@ai-sdk/provider-utils"))};`,
      "",
    ].join("\n"),
  );
  for (const variant of ["shipped", "changed"] as const) {
    const plugins = variant === "changed" ? [changedProviderUtils] : [];
    const file = await bundledModule(directory, variant, entry, plugins);
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

describe("a zod 4 schema's validate", () => {
  const plain = z.object({ name: z.string(), count: z.number().optional() });
  const slow = z.object({ name: z.string().refine(async (name) => name !== "no") });
  const throwing = z.object({
    name: z.string().refine(() => {
      throw new Error("the refinement failed");
    }),
  });

  test("answers at once when the schema has no asynchronous part", () => {
    const validate = packages.changed.utils.zodSchema(plain).validate;
    const result = validate?.({ name: "a", count: 2, extra: true });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual({ success: true, value: { name: "a", count: 2 } });
  });

  test("gives what the shipped one gives, valid or not, asynchronous parts and throws included", async () => {
    const cases: Array<[z.ZodType, unknown]> = [
      [plain, { name: "a", count: 2 }],
      [plain, { name: 1 }],
      [plain, "not an object"],
      [slow, { name: "yes" }],
      [slow, { name: "no" }],
      [throwing, { name: "a" }],
    ];
    for (const [schema, value] of cases) {
      const [shipped, changed] = await Promise.all(
        (["shipped", "changed"] as const).map((variant) =>
          Promise.resolve(packages[variant].utils.zodSchema(schema).validate?.(value)).then(
            (result) => comparable(result),
            (error: unknown) => ({ rejected: comparable(error) }),
          ),
        ),
      );
      expect(changed).toEqual(shipped);
    }
  });
});

/** The model of `wire` from one variant's packages, sending to the fake server. */
function modelOf(variant: Variant, wire: Wire, baseURL: string): LanguageModelV3 {
  const { openai, anthropic } = packages[variant];
  switch (wire) {
    case "openai-chat":
      return openai.createOpenAI({ apiKey: "test-key", baseURL }).chat("gpt-4.1");
    case "openai-responses":
      return openai.createOpenAI({ apiKey: "test-key", baseURL }).responses("gpt-5");
    case "anthropic":
      return anthropic.createAnthropic({ apiKey: "test-key", baseURL })("claude-fake");
  }
}

/**
 * Every stream part of one request answered with `reply`, comparable across variants; a failure
 * of `doStream` itself (Anthropic's model reads the first event before it returns) as one entry.
 */
async function partsOf(model: LanguageModelV3, reply: Reply): Promise<unknown[]> {
  server?.enqueue(reply);
  try {
    return await streamedParts(model);
  } catch (error) {
    return [{ thrown: comparable(error) }];
  }
}

async function streamedParts(model: LanguageModelV3): Promise<unknown[]> {
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [{ type: "function", name: "lookup", inputSchema: { type: "object" } }],
    includeRawChunks: true,
    // Parsed by each package's own zod schemas into the body.
    providerOptions: {
      openai: { parallelToolCalls: false, user: "someone", unknownOption: 1 },
      anthropic: { sendReasoning: true, disableParallelToolUse: true },
    },
  });
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) {
    parts.push(part);
  }
  return parts.map(comparable) as unknown[];
}

/** Fields holding the fake server's clock (in seconds: it may tick between the two requests). */
const CLOCK_FIELDS = new Set(["timestamp", "created", "created_at"]);

/** `value` as JSON: an error as its class, message and cause; the server's clock as a marker. */
function comparable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, each: unknown) => {
      if (CLOCK_FIELDS.has(key)) {
        return "<timestamp>";
      }
      if (each instanceof Error) {
        return { name: each.name, message: each.message, cause: comparableCause(each.cause) };
      }
      return each;
    }),
  );
}

function comparableCause(cause: unknown): unknown {
  return cause instanceof Error ? { name: cause.name, message: cause.message } : cause;
}

const sse = (event: string | undefined, data: object | string) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** Replies each wire's model reads: whole ones, and streams holding a chunk its schema rejects. */
const REPLIES: Record<Wire, Array<[string, Reply]>> = {
  "openai-chat": [
    [
      "text, reasoning, two tool calls and usage",
      {
        text: ["Hello ", "world"],
        toolCalls: [
          { id: "call_1", name: "lookup", arguments: ['{"key"', ':"a"}'] },
          { id: "call_2", name: "lookup", arguments: '{"key":"b"}' },
        ],
        usage: { input: 12, output: 7, cacheRead: 2, reasoning: 1 },
      },
    ],
    ["a reply cut off by the output limit", { text: "so far", finish: "length" }],
    [
      "a chunk the schema rejects and one that is not JSON",
      {
        raw: [
          sse(undefined, { id: "c1", choices: [{ index: 0, delta: { content: "He" } }] }),
          sse(undefined, { id: 7, choices: [{ index: 0, delta: { content: 3 } }] }),
          sse(undefined, "{nope"),
          sse(undefined, {
            id: "c1",
            choices: [{ index: 0, delta: { content: "llo" }, finish_reason: "stop" }],
          }),
          "data: [DONE]\n\n",
        ] satisfies RawPiece[],
      },
    ],
  ],
  "openai-responses": [
    [
      "text, reasoning, a tool call and usage",
      {
        text: ["Hello ", "world"],
        reasoning: "Thinking",
        encryptedReasoning: "opaque",
        toolCalls: [{ id: "call_1", name: "lookup", arguments: ['{"key"', ':"a"}'] }],
        usage: { input: 12, output: 7, cacheRead: 2, reasoning: 1 },
      },
    ],
    [
      "an event the schema rejects and one that is not JSON",
      {
        raw: [
          sse("response.output_text.delta", {
            type: "response.output_text.delta",
            item_id: 5,
            delta: "x",
          }),
          sse("response.output_text.delta", "{nope"),
        ] satisfies RawPiece[],
      },
    ],
  ],
  anthropic: [
    [
      "thinking, text, a tool call and usage",
      {
        text: ["Hello ", "world"],
        reasoning: "Thinking",
        reasoningSignature: "signed",
        toolCalls: [{ id: "toolu_1", name: "lookup", arguments: ['{"key"', ':"a"}'] }],
        usage: { input: 12, output: 7, cacheRead: 2, cacheWrite: 1 },
      },
    ],
    [
      "an event the schema rejects and one that is not JSON",
      {
        raw: [
          sse("message_start", {
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
          }),
          sse("content_block_delta", { type: "content_block_delta", index: "first" }),
          sse("message_stop", "{nope"),
        ] satisfies RawPiece[],
      },
    ],
    [
      "a first event the schema rejects",
      {
        raw: [
          sse("content_block_delta", { type: "content_block_delta", index: "first" }),
        ] satisfies RawPiece[],
      },
    ],
  ],
};

describe("each wire's model makes the same stream parts with provider-utils as changed", () => {
  for (const [wire, replies] of Object.entries(REPLIES) as Array<[Wire, Array<[string, Reply]>]>) {
    for (const [name, reply] of replies) {
      test(`${wire}: ${name}`, async () => {
        // A server each, so that both replies get the same ids.
        const parts = [];
        const bodies = [];
        for (const variant of ["shipped", "changed"] as const) {
          server = await startFakeModelServer();
          parts.push(await partsOf(modelOf(variant, wire, `${server.url}/v1`), reply));
          bodies.push(server.requests.map((request) => request.body));
          await server.close();
          server = undefined;
        }
        expect(bodies[1]).toEqual(bodies[0]);
        expect(bodies[0]).toHaveLength(1);
        const [shipped, changed] = parts;
        expect(changed).toEqual(shipped);
        expect(shipped?.length).toBeGreaterThan(name.startsWith("a first event") ? 0 : 2);
      });
    }
  }
});
