import type { EventInput } from "../events/events.js";
import { secretValues, textRedactor } from "../events/secrets.js";
import { holdsLongString } from "./event-line.js";

/**
 * A text rewriter that replaces the values of secret-looking environment variables
 * ({@link secretValues}) with `[redacted:NAME]` where they stand as a value (a whole token, or
 * anywhere for one of 16 characters or more: see `textRedactor`), so keys never reach
 * `events.jsonl` even when a tool prints them.
 */
export function secretRedactor(environment: NodeJS.ProcessEnv): (text: string) => string {
  return textRedactor(secretValues(environment));
}

/**
 * An event rewriter with the replacements of {@link secretRedactor} (and of `secretVariables`,
 * secrets whatever their names), applied to every string in
 * the event's `data` (keys included), each string on its own, so its ends bound a secret. A
 * session applies it once, before the event is written, folded into the history or sent to
 * anyone, so what a client sees, what the model is sent next and what a resumed session reads are
 * the same text. Returns the input itself when nothing matched.
 */
export function eventRedactor(
  environment: NodeJS.ProcessEnv,
  secretVariables: readonly string[] = [],
): (input: EventInput) => EventInput {
  const secrets = secretValues(environment, secretVariables);
  if (secrets.length === 0) {
    return (input) => input;
  }
  const redactText = textRedactor(secrets);
  const values = secrets.map(({ value }) => value);
  // Each secret as it appears inside a JSON string: if none is in the data's JSON, no string holds
  // one, and the data is not walked.
  const escaped = values.map((value) => JSON.stringify(value).slice(1, -1));
  const jsonHoldsSecret = (data: unknown) => textHoldsSecret(JSON.stringify(data), escaped);
  return (input) => {
    if (!eventHoldsSecret(input, values, jsonHoldsSecret)) {
      return input;
    }
    const data = redactStrings(input.data, redactText);
    return data === input.data ? input : ({ ...input, data } as EventInput);
  };
}

/**
 * Whether a string of `input`'s data may hold one of `secrets`, searched the cheapest way for its
 * shape. A streamed delta (`assistant.message_delta`, `assistant.reasoning_delta`, one per model
 * chunk) is searched in its `deltaContent`, the model's text, where it is: its other field,
 * `messageId`, is a UUID of ours (agent/model-turn.ts), and `JSON.stringify` of every delta was
 * most of the redactor's cost while an answer streamed (bench/notes/relay33.md). Data holding a
 * long string is walked ({@link holdsSecret}); any other data is searched through its JSON
 * (`searchJson`).
 */
function eventHoldsSecret(
  input: EventInput,
  secrets: readonly string[],
  searchJson: (data: unknown) => boolean,
): boolean {
  if (input.type === "assistant.message_delta" || input.type === "assistant.reasoning_delta") {
    return textHoldsSecret(input.data.deltaContent, secrets);
  }
  return holdsLongString(input.data) ? holdsSecret(input.data, secrets) : searchJson(input.data);
}

/** Whether `text` contains one of `secrets`. */
function textHoldsSecret(text: string, secrets: readonly string[]): boolean {
  for (const secret of secrets) {
    if (text.includes(secret)) {
      return true;
    }
  }
  return false;
}

/**
 * Whether a string in `value` (a key or a value, at any depth) contains one of `secrets`: only
 * then can {@link redactStrings} change anything. Used for data holding a string of a mebibyte or
 * more (a huge `user.message`, a tool result), read where it is: its JSON was a second copy of
 * the text (a 7.3 MiB prompt's `-p` run peaked 14 MiB higher). Other data is searched through its
 * JSON: walking every event's data cost a 40-tool-turn `-p` run 2-3 % more instructions
 * (bench/notes/turn21.md). Objects that are not plain data are searched through their JSON, as
 * {@link redactStrings} rewrites them.
 */
function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (typeof value === "string") {
    return textHoldsSecret(value, secrets);
  }
  if (typeof value !== "object" || value === null) {
    return false;
  }
  if (Array.isArray(value)) {
    return value.some((item) => holdsSecret(item, secrets));
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    const text: string | undefined = JSON.stringify(value);
    return text !== undefined && holdsSecret(JSON.parse(text), secrets);
  }
  for (const key in value) {
    if (holdsSecret(key, secrets) || holdsSecret((value as JsonRecord)[key], secrets)) {
      return true;
    }
  }
  return false;
}

type JsonRecord = Record<string, unknown>;

/** `value` with `redact` applied to every string in it; `value` itself when none changed. */
function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") {
    return redact(value);
  }
  if (typeof value !== "object" || value === null) {
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => redactStrings(item, redact));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    // Not plain data (a Date, a class): what is written is its JSON.
    return redactStrings(JSON.parse(JSON.stringify(value)), redact);
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const entry = [redact(key), redactStrings(item, redact)] as const;
    changed ||= entry[0] !== key || entry[1] !== item;
    return entry;
  });
  return changed ? Object.fromEntries(entries) : value;
}
