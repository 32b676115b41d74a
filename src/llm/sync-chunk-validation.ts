import type { LanguageModelV3 } from "@ai-sdk/provider";
import { toJSONSchema, type ZodType } from "zod";

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
    holder.chunkSchema = syncSchema(holder.chunkSchema);
  }
  return model;
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
