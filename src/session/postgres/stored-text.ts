/**
 * The one place where strings cross into and out of PostgreSQL. A `text` or `jsonb` value cannot
 * hold U+0000 (PostgreSQL: "invalid byte sequence for encoding "UTF8": 0x00"; `jsonb` refuses the
 * `\u0000` escape too), yet a prompt, a tool's output, a model's text or a damaged line of an
 * imported log may hold one. Each string is therefore stored with U+0000 written as U+FFFE "0" and
 * U+FFFE itself as U+FFFE U+FFFE, and read back the other way, so what is read equals what was
 * written. U+FFFE is a Unicode noncharacter, "reserved for internal use" (Unicode 15, §23.7):
 * a string without U+0000 or U+FFFE is stored exactly as it is.
 *
 * An event's `data` row is the line the file store writes: `JSON.stringify` writes U+0000 inside a
 * string as the six characters `\u0000`, which a `text` column holds, so a valid event's row keeps
 * its JSON as written; only a raw U+0000 (a damaged line) is rewritten there.
 */

/** The escape character: a noncharacter (U+FFFE). */
const ESCAPE = "\uFFFE";

/** Every U+0000 and U+FFFE of a string. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the character PostgreSQL refuses.
const UNSTORABLE = /[\u0000\uFFFE]/g;

/** Every escape sequence of {@link storedText}'s results. */
const ESCAPED = /\uFFFE([0\uFFFE])/g;

/** `value` as a `text` or `jsonb` value can hold it (see the module comment). */
export function storedText(value: string): string {
  return value.replace(UNSTORABLE, (character) =>
    character === ESCAPE ? ESCAPE + ESCAPE : `${ESCAPE}0`,
  );
}

/** `value` as a `text` column can hold it, `null` as it is. */
export function storedOptionalText(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : storedText(value);
}

/** The string {@link storedText} was given, from what it returned; `null` as it is. */
export function readText<Value extends string | null>(value: Value): Value {
  return (
    value === null
      ? value
      : value.replace(ESCAPED, (_, kind: string) => (kind === "0" ? "\u0000" : ESCAPE))
  ) as Value;
}

/**
 * `value`'s JSON for a `jsonb` column: every string in it (keys too) through {@link storedText}.
 * Read back with {@link readJson}.
 */
export function storedJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === "string" ? storedText(field) : mapKeys(field, storedText),
  );
}

/** A `jsonb` value as the driver parsed it, with every string read back by {@link readText}. */
export function readJson(value: unknown): unknown {
  if (typeof value === "string") {
    return readText(value);
  }
  if (Array.isArray(value)) {
    return value.map(readJson);
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [readText(key), readJson(field)]),
    );
  }
  return value;
}

/** A plain object with its keys mapped; anything else as it is. */
function mapKeys(value: unknown, map: (key: string) => string): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return value;
  }
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [map(key), field]));
}
