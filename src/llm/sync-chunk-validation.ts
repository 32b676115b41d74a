/**
 * How an OpenAI-compatible chat model of `@ai-sdk/openai-compatible` is driven per request and per
 * chunk: its chunks checked synchronously, by hand where chat-chunk-check.ts is sure
 * ({@link withSyncChunkValidation}), and the wire messages
 * of earlier turns kept ({@link withKeptMessages}). Both change the model instance in place and
 * leave a model of another package or shape untouched.
 */

import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
} from "@ai-sdk/provider";
import { toJSONSchema, type ZodType } from "zod";
import { CHAT_CHUNK_SHAPE, checkChatChunk, describeSchema, UNSURE } from "./chat-chunk-check.js";
import { EncodedJson } from "./encoded-json.js";
import { prepareAt } from "./first-response.js";
import { fillsJsonPlaceholders, holdsSharedTexts, jsonPlaceholder } from "./huge-messages.js";
import { KeptTools } from "./kept-tools.js";

/**
 * The AI SDK's schema marker (`@ai-sdk/provider-utils`, `schemaSymbol`): an object carrying it,
 * `jsonSchema` and `validate` is used by the SDK as it is, without wrapping it again.
 */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** A validation result in the AI SDK's shape (`ValidationResult` of `@ai-sdk/provider-utils`). */
type ValidationResult = { success: true; value: unknown } | { success: false; error: Error };

/**
 * The version of `@ai-sdk/openai-compatible` whose chat chunk schema is {@link CHAT_CHUNK_SHAPE}
 * (test/llm/compatible-schemas-on-first-use.test.ts checks that the installed package is
 * this one and that its schema has that shape).
 */
export const CHAT_CHUNK_PACKAGE_VERSION = "2.0.92";

/**
 * Makes an OpenAI-compatible chat model (`@ai-sdk/openai-compatible`) validate its stream chunks
 * with zod's synchronous `safeParse`, and keeps one schema object for every chunk.
 *
 * The SDK validates each SSE chunk against the model's `chunkSchema`, a zod schema it wraps anew
 * per chunk (`asSchema` → `zodSchema`) and checks with `safeParseAsync`, which turns off zod's
 * compiled fast path for objects. With one synchronous schema object the SDK's parse stage fell
 * from 23 % to 12 % of the relay's busy main-thread time (bench/notes/targets.md). The schema is
 * the SDK's own, so what is accepted, rejected and returned (transforms included) is unchanged; a
 * schema with asynchronous parts, which `safeParse` refuses, is checked with `safeParseAsync` as
 * before. When the schema is the one chat-chunk-check.ts is written for ({@link CHAT_CHUNK_SHAPE}),
 * a chunk that check is sure of is checked there, to the value zod returns, and zod sees only the
 * rest (bench/notes/turn23.md); its parsers are then compiled only if such a chunk comes. A model
 * without a zod `chunkSchema` (another package or version) is returned untouched.
 *
 * In turnloop's bundle the model's `chunkSchema` is an accessor that builds the schema when first
 * read (scripts/compatible-schemas-on-first-use.mjs): it is then read only when zod is
 * needed (a chunk the check is unsure of, or the schema's JSON Schema), so a run whose chunks the
 * check is sure of never builds it (bench/notes/start25.md). Its shape is then known by the
 * package's version, `packageVersion` ({@link CHAT_CHUNK_PACKAGE_VERSION}), instead of by
 * describing the built schema.
 * @param packageVersion the package's `VERSION` export; needed only for a schema built on first read.
 * @returns `model`, changed in place.
 */
export function withSyncChunkValidation(
  model: LanguageModelV3,
  packageVersion?: string,
): LanguageModelV3 {
  const holder = model as LanguageModelV3 & { chunkSchema?: unknown };
  const onFirstRead = Object.getOwnPropertyDescriptor(model, "chunkSchema")?.get;
  if (onFirstRead !== undefined) {
    // The accessor builds the schema once; later reads give the same object.
    const schema = () => onFirstRead.call(model) as ZodType;
    const checked = packageVersion === CHAT_CHUNK_PACKAGE_VERSION;
    holder.chunkSchema = syncSchema(schema, checked);
    if (!checked) {
      prepareAt(() => compileChunkParsers(schema(), SAMPLE_CHUNKS));
    }
  } else if (isZodSchema(holder.chunkSchema)) {
    const schema = holder.chunkSchema;
    const checked = describeSchema(schema) === CHAT_CHUNK_SHAPE;
    holder.chunkSchema = syncSchema(() => schema, checked);
    if (!checked) {
      // While the first request waits for its answer (first-response.ts).
      prepareAt(() => compileChunkParsers(schema, SAMPLE_CHUNKS));
    }
  }
  return model;
}

/**
 * Chunks of an OpenAI chat stream that reach every part of the chunk schema a reply uses: a first
 * text chunk (what the first part needs), then reasoning, a tool call, the finish and the usage.
 */
export const SAMPLE_CHUNKS: readonly object[] = [
  {
    id: "chatcmpl-0",
    object: "chat.completion.chunk",
    created: 0,
    model: "model",
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
  },
  {
    id: "chatcmpl-0",
    object: "chat.completion.chunk",
    created: 0,
    model: "model",
    choices: [
      {
        index: 0,
        delta: {
          content: "text",
          reasoning_content: "thought",
          tool_calls: [
            {
              index: 0,
              id: "call_0",
              type: "function",
              function: { name: "tool", arguments: "{}" },
            },
          ],
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 1,
      completion_tokens: 1,
      total_tokens: 2,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  },
];

/**
 * Parses `chunks` once. zod compiles a parser for each object schema the first time it parses
 * one (`new Function`), about 3 ms for this schema in all, which the first response's chunks paid
 * on the way to the user (first-response.ts).
 */
function compileChunkParsers(schema: ZodType, chunks: readonly object[]): void {
  for (const chunk of chunks) {
    schema.safeParse(chunk);
  }
}

function isZodSchema(value: unknown): value is ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function" &&
    typeof (value as { safeParseAsync?: unknown }).safeParseAsync === "function"
  );
}

/**
 * The schema `schema()` gives as an AI SDK schema object whose `validate` is synchronous where zod
 * allows; with `checked`, a chunk chat-chunk-check.ts is sure of is checked there, the rest by
 * zod. `schema` is called only when zod is needed.
 */
function syncSchema(schema: () => ZodType, checked: boolean) {
  let jsonSchema: unknown;
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    // As the SDK's own wrapper: JSON Schema of the input, made only if asked (never for chunks).
    get jsonSchema() {
      jsonSchema ??= toJSONSchema(schema(), { target: "draft-7", io: "input" });
      return jsonSchema;
    },
    validate(value: unknown): ValidationResult | Promise<ValidationResult> {
      if (checked) {
        const chunk = checkChatChunk(value);
        if (chunk !== UNSURE) {
          return { success: true, value: chunk };
        }
      }
      const zodSchema = schema();
      let result: ReturnType<ZodType["safeParse"]>;
      try {
        result = zodSchema.safeParse(value);
      } catch {
        // zod throws when the schema needs async parsing: the SDK's own way then.
        return zodSchema.safeParseAsync(value).then(validationResult);
      }
      return validationResult(result);
    },
  };
}

function validationResult(result: ReturnType<ZodType["safeParse"]>): ValidationResult {
  return result.success
    ? { success: true, value: result.data }
    : { success: false, error: result.error };
}

/** What the chat model's `getArgs` returns (`@ai-sdk/openai-compatible` 2.x): the body's fields. */
interface ChatArguments {
  args: { messages: unknown[]; tools?: unknown };
}

type GetArguments = (options: LanguageModelV3CallOptions) => Promise<ChatArguments>;

/**
 * A prompt's messages and their wire messages as the SDK converted them, index by index up to the
 * first wire message after the system message's (`prompt[0]` and `wire[0]` stand for the system
 * message, which each request converts anew). Extended in place by a request that adds messages.
 */
interface KeptMessages {
  prompt: LanguageModelV3Message[];
  wire: unknown[];
  /**
   * With a fetch that fills in placeholders: the JSON of the wire messages after the system
   * message's, comma-separated, serialised and encoded once each ({@link serialisedOnce});
   * `wire` then holds the system message's stand-in only.
   */
  json: EncodedJson;
}

/**
 * Makes an OpenAI-compatible chat model (`@ai-sdk/openai-compatible`) convert only the messages a
 * request adds to the prompt of an earlier one. The SDK's `getArgs` converts the whole prompt to
 * Chat Completions messages on every request (each past call's arguments serialised again), work
 * that grows with the history (issue 26, figure 3). When a request's prompt holds, after its
 * system message, the very message objects of an earlier request's prompt (src/llm/convert.ts
 * keeps them) and then more, the SDK converts the system message and the new ones, and the
 * earlier request's wire messages are put between them. The SDK converts each message on its own
 * (a system message to exactly one wire message), so the body is the one it would build from the
 * whole prompt. One kept conversion per conversation: keyed by its last message (weakly), taken
 * by one request at a time and extended by it. A prompt not starting with a system
 * message, or a model without `getArgs`, is converted whole as before. When the model's fetch
 * fills in placeholders (huge-messages.ts, `withHugeBodies`), the earlier wire messages are also
 * serialised and encoded to UTF-8 once (encoded-json.ts): the request's messages hold one
 * placeholder for their JSON, which the fetch puts in its place as those bytes, so neither the
 * SDK's `JSON.stringify` of the body nor its encoding grows with the history (issue 26, figure
 * 3) and the body's bytes are the same; and the request's tool definitions are serialised and
 * encoded once per tool set (kept-tools.ts).
 * @returns `model`, changed in place.
 */
export function withKeptMessages(model: LanguageModelV3): LanguageModelV3 {
  const holder = model as LanguageModelV3 & { getArgs?: unknown; config?: { fetch?: unknown } };
  if (typeof holder.getArgs !== "function") {
    return model;
  }
  const getArguments = (holder.getArgs as GetArguments).bind(model);
  const serialised = fillsJsonPlaceholders(holder.config?.fetch);
  const tools = serialised ? new KeptTools() : undefined;
  const keptByLast = new WeakMap<LanguageModelV3Message, KeptMessages>();
  holder.getArgs = async (options: LanguageModelV3CallOptions): Promise<ChatArguments> => {
    const { prompt } = options;
    const [system] = prompt;
    if (system?.role !== "system") {
      return getArguments(options);
    }
    const found = keptConversion(keptByLast, prompt);
    if (found !== undefined) {
      // Taken now: a request sent meanwhile (a title's, a compaction's) converts its prompt whole.
      keptByLast.delete(found.prompt.at(-1) as LanguageModelV3Message);
    }
    const from = found === undefined ? 1 : found.prompt.length;
    const result = await getArguments(
      from === 1 ? options : { ...options, prompt: [system, ...prompt.slice(from)] },
    );
    if (tools !== undefined) {
      result.args.tools = tools.placeholderFor(
        options.tools,
        result.args.tools,
        options.abortSignal,
      );
    }
    const converted = result.args.messages;
    let kept: KeptMessages;
    if (found === undefined) {
      kept = { prompt: prompt.slice(), wire: converted.slice(), json: new EncodedJson() };
    } else {
      kept = found;
      for (let index = from; index < prompt.length; index++) {
        kept.prompt.push(prompt[index] as LanguageModelV3Message);
      }
      for (let index = 1; index < converted.length; index++) {
        kept.wire.push(converted[index]);
      }
      const { messages, keep } = serialised
        ? serialisedOnce(kept, converted[0], options.abortSignal)
        : { messages: kept.wire.slice(), keep: true };
      messages[0] = converted[0];
      result.args.messages = messages;
      if (!keep) {
        return result;
      }
    }
    keptByLast.set(prompt.at(-1) as LanguageModelV3Message, kept);
    return result;
  };
  return model;
}

/**
 * A request's messages when earlier ones are serialised once: `system`, then one placeholder for
 * the JSON of all the others (the kept ones and the request's new ones, which join the kept JSON
 * here, serialised as `JSON.stringify` would serialise them inside the array); `keep`: true.
 *
 * When the messages not yet serialised hold a shared huge text's placeholder (huge-messages.ts,
 * `shareHugeTexts`), they stay objects after the kept JSON's placeholder, and `keep` is false:
 * that placeholder stands for its text during this request only (released after it), so it must
 * reach the body where the fetch looks for it, not inside a kept JSON text, which the fetch sends
 * as it is; and the message holding it is a copy made for this request, which no later prompt
 * holds, so the conversion would not be found again anyway.
 */
function serialisedOnce(
  kept: KeptMessages,
  system: unknown,
  request: AbortSignal | undefined,
): { messages: unknown[]; keep: boolean } {
  const added = kept.wire
    .slice(1)
    .map((message) => JSON.stringify(message) ?? "null")
    .join(",");
  const keep = !holdsSharedTexts(added);
  if (keep) {
    kept.wire.length = 1;
    if (added !== "") {
      kept.json.append(kept.json.length === 0 ? added : `,${added}`);
    }
  }
  const messages =
    kept.json.length === 0 ? [system] : [system, jsonPlaceholder(kept.json.snapshot(), request)];
  return { messages: keep ? messages : [...messages, ...kept.wire.slice(1)], keep };
}

/**
 * The kept conversion whose messages begin `prompt` after its system message: found by looking up
 * the prompt's messages from its end (a request adds a few), then checked message by message; one
 * found that does not begin it is dropped.
 */
function keptConversion(
  keptByLast: WeakMap<LanguageModelV3Message, KeptMessages>,
  prompt: readonly LanguageModelV3Message[],
): KeptMessages | undefined {
  for (let index = prompt.length - 1; index >= 1; index--) {
    const kept = keptByLast.get(prompt[index] as LanguageModelV3Message);
    if (kept !== undefined) {
      const matches =
        kept.prompt.length === index + 1 &&
        kept.prompt.every((message, position) => position === 0 || prompt[position] === message);
      if (!matches) {
        // Another request's prompt (a compaction's summary in front): the kept messages would
        // hold the history before it for as long as this message lives.
        keptByLast.delete(prompt[index] as LanguageModelV3Message);
        return undefined;
      }
      return kept;
    }
  }
  return undefined;
}
