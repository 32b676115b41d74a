import type { EventInput } from "../events/events.js";
import { secretValues, textRedactor } from "../events/secrets.js";

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
 * An event rewriter with the replacements of {@link secretRedactor}, applied to every string in
 * the event's `data` (keys included), each string on its own, so its ends bound a secret. A
 * session applies it once, before the event is written, folded into the history or sent to
 * anyone, so what a client sees, what the model is sent next and what a resumed session reads are
 * the same text. Returns the input itself when nothing matched.
 */
export function eventRedactor(environment: NodeJS.ProcessEnv): (input: EventInput) => EventInput {
  const secrets = secretValues(environment);
  if (secrets.length === 0) {
    return (input) => input;
  }
  const redactText = textRedactor(secrets);
  // Each secret as it appears inside a JSON string: if none is in the data's JSON, no string holds
  // one, and the data is not walked.
  const escaped = secrets.map(({ value }) => JSON.stringify(value).slice(1, -1));
  return (input) => {
    const text = JSON.stringify(input.data);
    if (!escaped.some((value) => text.includes(value))) {
      return input;
    }
    const data = redactStrings(input.data, redactText);
    return data === input.data ? input : ({ ...input, data } as EventInput);
  };
}

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
