import type { LanguageModelV3 } from "@ai-sdk/provider";
import { toJSONSchema, type ZodType } from "zod";
import { prepareAt } from "./first-response.js";

/**
 * The AI SDK's schema marker (`@ai-sdk/provider-utils`, `schemaSymbol`): an object carrying it,
 * `jsonSchema` and `validate` is used by the SDK as it is, without wrapping it again.
 */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** A validation result in the AI SDK's shape (`ValidationResult` of `@ai-sdk/provider-utils`). */
type ValidationResult = { success: true; value: unknown } | { success: false; error: Error };

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
 * before. A model without a zod `chunkSchema` (another package or version) is returned untouched.
 * @returns `model`, changed in place.
 */
export function withSyncChunkValidation(model: LanguageModelV3): LanguageModelV3 {
  const holder = model as LanguageModelV3 & { chunkSchema?: unknown };
  if (isZodSchema(holder.chunkSchema)) {
    const schema = holder.chunkSchema;
    holder.chunkSchema = syncSchema(schema);
    // While the first request waits for its answer (first-response.ts).
    prepareAt(() => compileChunkParsers(schema, SAMPLE_CHUNKS));
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

/** `schema` as an AI SDK schema object whose `validate` is synchronous where zod allows. */
function syncSchema(schema: ZodType) {
  let jsonSchema: unknown;
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    // As the SDK's own wrapper: JSON Schema of the input, made only if asked (never for chunks).
    get jsonSchema() {
      jsonSchema ??= toJSONSchema(schema, { target: "draft-7", io: "input" });
      return jsonSchema;
    },
    validate(value: unknown): ValidationResult | Promise<ValidationResult> {
      let result: ReturnType<ZodType["safeParse"]>;
      try {
        result = schema.safeParse(value);
      } catch {
        // zod throws when the schema needs async parsing: the SDK's own way then.
        return schema.safeParseAsync(value).then(validationResult);
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
