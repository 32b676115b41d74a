/**
 * A hand-written check of an OpenAI-compatible chat stream chunk that gives what the AI SDK's zod
 * chunk schema gives, for the chunks a server sends almost always, and leaves the rest to zod.
 *
 * The schema is `createOpenAICompatibleChatChunkSchema` of `@ai-sdk/openai-compatible` 2.x: the
 * union of a loose chunk object (`id`, `created`, `model`, `choices`, `usage`) and the error
 * object. zod's parse of it was about 4 % of a busy `-p` run's CPU (bench/notes/turn23.md): a
 * payload and an issues array per field, the union's results, the loose objects' second pass over
 * their keys. {@link checkChatChunk} builds the very value zod returns (the same keys in the same
 * order: a schema's keys in its order where present, then a loose object's other keys in the
 * input's order; an object's unknown keys dropped; `refusal` as its transform makes it), or
 * answers {@link UNSURE} for anything it does not treat: a field of the wrong type, a missing
 * `choices` or `function`, a content given as parts, a number that is not finite, a `__proto__`
 * key, the error object. zod then checks that chunk, so what is accepted, rejected and returned
 * stays zod's. {@link describeSchema} of the model's schema must equal {@link CHAT_CHUNK_SHAPE}
 * for the check to be used (sync-chunk-validation.ts), so a package whose schema changed is
 * checked by zod alone.
 */

/**
 * {@link describeSchema} of the chunk schema {@link checkChatChunk} gives the results of
 * (`@ai-sdk/openai-compatible` 2.0.92, `createOpenAICompatibleChatChunkSchema` with its default
 * error object).
 */
export const CHAT_CHUNK_SHAPE = [
  "union({id:optional(nullable(string)),created:optional(nullable(number)),",
  "model:optional(nullable(string)),",
  'choices:{delta:optional(nullable({role:optional(nullable(enum(["assistant",""]))),',
  "content:optional(nullable(union(string|{type:string,...unknown}[]))),",
  "refusal:pipe(optional(nullable(unknown)),transform),",
  "reasoning_content:optional(nullable(string)),reasoning:optional(nullable(string)),",
  "tool_calls:optional(nullable({index:optional(nullable(number)),",
  "id:optional(nullable(string)),function:{name:optional(nullable(string)),",
  "arguments:optional(nullable(string))},",
  "extra_content:optional(nullable({google:optional(nullable({thought_signature:optional(nullable(string))}))}))}[]))})),",
  "finish_reason:optional(nullable(string))}[],",
  "usage:optional(nullable({prompt_tokens:optional(nullable(number)),",
  "completion_tokens:optional(nullable(number)),total_tokens:optional(nullable(number)),",
  "prompt_tokens_details:optional(nullable({cached_tokens:optional(nullable(number)),",
  "...unknown})),",
  "completion_tokens_details:optional(nullable({reasoning_tokens:optional(nullable(number)),",
  "accepted_prediction_tokens:optional(nullable(number)),",
  "rejected_prediction_tokens:optional(nullable(number)),...unknown})),...unknown})),",
  "...unknown}|{error:{message:string,type:optional(nullable(string)),",
  "param:optional(nullable(any)),code:optional(nullable(union(string|number)))}})",
].join("");

/** The answer of {@link checkChatChunk} for a chunk it leaves to zod. */
export const UNSURE: unique symbol = Symbol("unsure");

type Checked = unknown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `.nullish()` field of a `z.string()`: `null` or a string. */
function isStringOrNull(value: unknown): boolean {
  return value === null || typeof value === "string";
}

/** A `.nullish()` field of a `z.number()` (finite numbers only, as zod 4). */
function isNumberOrNull(value: unknown): boolean {
  return value === null || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Copies the `.nullish()` fields `keys` of `input` present in it into `output`, in that order,
 * each checked by `check`. Returns false when one fails. An indexed loop: `for…of` made an
 * iterator and a result object per key until V8 optimised it, 15 KiB of a tool turn's
 * allocation (bench/notes/turn37.md).
 */
function copyNullish(
  input: Record<string, unknown>,
  output: Record<string, unknown>,
  keys: readonly string[],
  check: (value: unknown) => boolean,
): boolean {
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key in input) {
      const value = input[key];
      if (!check(value)) {
        return false;
      }
      output[key] = value;
    }
  }
  return true;
}

/** A loose object's other keys after its schema's, in the input's order (zod's catchall pass). */
function copyOthers(
  input: Record<string, unknown>,
  output: Record<string, unknown>,
  known: ReadonlySet<string>,
): boolean {
  for (const key in input) {
    if (key === "__proto__") {
      return false;
    }
    if (!known.has(key)) {
      output[key] = input[key];
    }
  }
  return true;
}

/**
 * The `.nullish()` fields {@link copyNullish} copies, one constant each: an array literal in a call
 * is a new array each time, and the check runs once per streamed chunk (bench/notes/relay33.md).
 */
const ID_KEY = ["id"];
const CREATED_KEY = ["created"];
const MODEL_KEY = ["model"];
const FINISH_REASON_KEY = ["finish_reason"];
const CONTENT_KEY = ["content"];
const REASONING_KEYS = ["reasoning_content", "reasoning"];
const INDEX_KEY = ["index"];
const FUNCTION_KEYS = ["name", "arguments"];
const THOUGHT_SIGNATURE_KEY = ["thought_signature"];

const CHUNK_KEYS: ReadonlySet<string> = new Set(["id", "created", "model", "choices", "usage"]);
const USAGE_NUMBERS = ["prompt_tokens", "completion_tokens", "total_tokens"];
const USAGE_KEYS: ReadonlySet<string> = new Set([
  ...USAGE_NUMBERS,
  "prompt_tokens_details",
  "completion_tokens_details",
]);
const PROMPT_DETAILS = ["cached_tokens"];
const PROMPT_DETAIL_KEYS: ReadonlySet<string> = new Set(PROMPT_DETAILS);
const COMPLETION_DETAILS = [
  "reasoning_tokens",
  "accepted_prediction_tokens",
  "rejected_prediction_tokens",
];
const COMPLETION_DETAIL_KEYS: ReadonlySet<string> = new Set(COMPLETION_DETAILS);

/**
 * What the AI SDK's chunk schema returns for `value`, or {@link UNSURE} when zod must say.
 * `value` is what `JSON.parse` made of one SSE event's data.
 */
export function checkChatChunk(value: unknown): Checked | typeof UNSURE {
  if (!isRecord(value) || !Array.isArray(value.choices)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if (
    !copyNullish(value, output, ID_KEY, isStringOrNull) ||
    !copyNullish(value, output, CREATED_KEY, isNumberOrNull) ||
    !copyNullish(value, output, MODEL_KEY, isStringOrNull)
  ) {
    return UNSURE;
  }
  // Made at its length: `push` onto `[]` gave each chunk room for 17.
  const choices = new Array<unknown>(value.choices.length);
  for (let index = 0; index < choices.length; index++) {
    const checked = checkChoice(value.choices[index]);
    if (checked === UNSURE) {
      return UNSURE;
    }
    choices[index] = checked;
  }
  output.choices = choices;
  if ("usage" in value) {
    const usage = checkUsage(value.usage);
    if (usage === UNSURE) {
      return UNSURE;
    }
    output.usage = usage;
  }
  return copyOthers(value, output, CHUNK_KEYS) ? output : UNSURE;
}

function checkChoice(choice: unknown): Checked | typeof UNSURE {
  if (!isRecord(choice)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if ("delta" in choice) {
    const delta = choice.delta === null ? null : checkDelta(choice.delta);
    if (delta === UNSURE) {
      return UNSURE;
    }
    output.delta = delta;
  }
  return copyNullish(choice, output, FINISH_REASON_KEY, isStringOrNull) ? output : UNSURE;
}

function checkDelta(delta: unknown): Checked | typeof UNSURE {
  if (!isRecord(delta)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if ("role" in delta) {
    const role = delta.role;
    if (role !== null && role !== "assistant" && role !== "") {
      return UNSURE;
    }
    output.role = role;
  }
  // Content as parts (an array) is left to zod.
  if (!copyNullish(delta, output, CONTENT_KEY, isStringOrNull)) {
    return UNSURE;
  }
  if ("refusal" in delta) {
    // The schema's transform: a string kept, anything else (false, null …) undefined.
    output.refusal = typeof delta.refusal === "string" ? delta.refusal : undefined;
  }
  if (!copyNullish(delta, output, REASONING_KEYS, isStringOrNull)) {
    return UNSURE;
  }
  if ("tool_calls" in delta) {
    const calls = delta.tool_calls === null ? null : checkToolCalls(delta.tool_calls);
    if (calls === UNSURE) {
      return UNSURE;
    }
    output.tool_calls = calls;
  }
  return output;
}

function checkToolCalls(calls: unknown): Checked | typeof UNSURE {
  if (!Array.isArray(calls)) {
    return UNSURE;
  }
  const output = new Array<unknown>(calls.length);
  for (let index = 0; index < calls.length; index++) {
    const call: unknown = calls[index];
    if (!isRecord(call) || !isRecord(call.function)) {
      return UNSURE;
    }
    const checked: Record<string, unknown> = {};
    const functionPart: Record<string, unknown> = {};
    if (
      !copyNullish(call, checked, INDEX_KEY, isNumberOrNull) ||
      !copyNullish(call, checked, ID_KEY, isStringOrNull) ||
      !copyNullish(call.function, functionPart, FUNCTION_KEYS, isStringOrNull)
    ) {
      return UNSURE;
    }
    checked.function = functionPart;
    if ("extra_content" in call) {
      const extra = checkExtraContent(call.extra_content);
      if (extra === UNSURE) {
        return UNSURE;
      }
      checked.extra_content = extra;
    }
    output[index] = checked;
  }
  return output;
}

/** `extra_content: {google?: {thought_signature?}}`, every level `.nullish()`. */
function checkExtraContent(extra: unknown): Checked | typeof UNSURE {
  if (extra === null) {
    return null;
  }
  if (!isRecord(extra)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if ("google" in extra) {
    const google = extra.google;
    if (google === null) {
      output.google = null;
    } else {
      const checked: Record<string, unknown> = {};
      if (
        !isRecord(google) ||
        !copyNullish(google, checked, THOUGHT_SIGNATURE_KEY, isStringOrNull)
      ) {
        return UNSURE;
      }
      output.google = checked;
    }
  }
  return output;
}

function checkUsage(usage: unknown): Checked | typeof UNSURE {
  if (usage === null) {
    return null;
  }
  if (!isRecord(usage)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if (!copyNullish(usage, output, USAGE_NUMBERS, isNumberOrNull)) {
    return UNSURE;
  }
  for (const [key, numbers, known] of [
    ["prompt_tokens_details", PROMPT_DETAILS, PROMPT_DETAIL_KEYS],
    ["completion_tokens_details", COMPLETION_DETAILS, COMPLETION_DETAIL_KEYS],
  ] as const) {
    if (key in usage) {
      const details = checkDetails(usage[key], numbers, known);
      if (details === UNSURE) {
        return UNSURE;
      }
      output[key] = details;
    }
  }
  return copyOthers(usage, output, USAGE_KEYS) ? output : UNSURE;
}

/** A loose, `.nullish()` object of `.nullish()` numbers. */
function checkDetails(
  details: unknown,
  numbers: readonly string[],
  known: ReadonlySet<string>,
): Checked | typeof UNSURE {
  if (details === null) {
    return null;
  }
  if (!isRecord(details)) {
    return UNSURE;
  }
  const output: Record<string, unknown> = {};
  if (!copyNullish(details, output, numbers, isNumberOrNull)) {
    return UNSURE;
  }
  return copyOthers(details, output, known) ? output : UNSURE;
}

/** A zod 4 schema's definition, as far as {@link describeSchema} reads it. */
interface SchemaDefinition {
  type?: unknown;
  shape?: Record<string, { _zod?: { def?: SchemaDefinition } }>;
  catchall?: { _zod?: { def?: SchemaDefinition } };
  element?: { _zod?: { def?: SchemaDefinition } };
  innerType?: { _zod?: { def?: SchemaDefinition } };
  in?: { _zod?: { def?: SchemaDefinition } };
  out?: { _zod?: { def?: SchemaDefinition } };
  options?: Array<{ _zod?: { def?: SchemaDefinition } }>;
  entries?: Record<string, unknown>;
  checks?: unknown[];
}

/**
 * A zod 4 schema's structure as text: each part's type, an object's keys in order and its
 * catchall, an enum's values, a check's count. Transforms and refinements are named, not read.
 */
export function describeSchema(schema: unknown): string {
  const definition = (schema as { _zod?: { def?: SchemaDefinition } } | null)?._zod?.def;
  if (definition === undefined) {
    return "?";
  }
  const type = String(definition.type);
  const checks = definition.checks?.length ? `#${definition.checks.length}` : "";
  switch (type) {
    case "object": {
      const fields = Object.entries(definition.shape ?? {}).map(
        ([key, field]) => `${key}:${describeSchema(field)}`,
      );
      const rest =
        definition.catchall === undefined ? "" : `,...${describeSchema(definition.catchall)}`;
      return `{${fields.join(",")}${rest}}${checks}`;
    }
    case "array":
      return `${describeSchema(definition.element)}[]${checks}`;
    case "optional":
    case "nullable":
      return `${type}(${describeSchema(definition.innerType)})`;
    case "pipe":
      return `pipe(${describeSchema(definition.in)},${describeSchema(definition.out)})`;
    case "union":
      return `union(${(definition.options ?? []).map(describeSchema).join("|")})`;
    case "enum":
      return `enum(${JSON.stringify(Object.values(definition.entries ?? {}))})`;
    default:
      return `${type}${checks}`;
  }
}
