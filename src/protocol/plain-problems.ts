/**
 * Params checked against a zod schema, with each problem said in plain words: the field, what it
 * must be, what was given (`model must be a model name (a string), not 3`). The server answers
 * every method's bad params with these (`-32602`, src/server/params.ts), and the SDK names a
 * session's bad settings with the same words before sending them (src/sdk/config-check.ts), so
 * an app reads one message whichever side finds the mistake.
 *
 * A schema's own `error` text, where it has one, is what the field must be ("letters, digits, '-'
 * or '_' …"); otherwise the words come from the kind of problem zod reports ({@link expected}).
 */

import type { z } from "zod";

/** A checked value, or the problems found, one sentence each. */
export type Checked<Value> = { ok: true; value: Value } | { ok: false; problems: string[] };

/** What a value was, for a message: its JSON when short (40 characters at most), else its kind. */
export function shownValue(value: unknown): string {
  if (typeof value === "function") {
    return "a function";
  }
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json !== undefined && json.length <= 40) {
    return json;
  }
  if (Array.isArray(value)) {
    return `an array of ${value.length} items`;
  }
  return typeof value === "object" ? "an object" : `a value of type ${typeof value}`;
}

/** Where a problem is, as an app writes it: `tools[0].name`, `provider.headers["x-id"]`. */
export function pathText(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") {
      text += `[${key}]`;
    } else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) {
      text += text === "" ? key : `.${key}`;
    } else {
      text += `[${JSON.stringify(String(key))}]`;
    }
  }
  return text;
}

/** zod's type names in words, as an expected value is said (`a string`, `true or false`). */
export const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
};

/** "one of "a", "b"", or the one value. */
function oneOf(values: readonly unknown[]): string {
  const shown = values.map((value) => JSON.stringify(value));
  return shown.length === 1 ? (shown[0] ?? "") : `one of ${shown.join(", ")}`;
}

/** A bound in words: "a number of at least 0", "a non-empty string", "at most 64 items". */
function bound(origin: string, limit: number | bigint, inclusive: boolean, side: "min" | "max") {
  if (origin === "string" && side === "min" && limit === 1) {
    return "a non-empty string";
  }
  const relation =
    side === "min" ? (inclusive ? "at least" : "above") : inclusive ? "at most" : "below";
  switch (origin) {
    case "string":
      return `a string of ${relation} ${limit} characters`;
    case "array":
    case "set":
      return `an array of ${relation} ${limit} items`;
    default:
      return `a number ${relation} ${limit}`;
  }
}

/** A union's alternatives in words: "a string or an object with textResultForLlm (a string)". */
function alternatives(branches: ReadonlyArray<ReadonlyArray<z.core.$ZodIssue>>): string {
  const words = branches.map((issues) => {
    const first = issues[0];
    if (first === undefined) {
      return "something else";
    }
    return first.path.length === 0
      ? first.message
      : `an object with ${pathText(first.path)} (${first.message})`;
  });
  return [...new Set(words)].join(" or ");
}

/** zod's per-parse error map: what the field must be, for an issue its schema has no text for. */
function expected(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return TYPE_WORDS[issue.expected] ?? `a value of type ${issue.expected}`;
    case "invalid_value":
      return oneOf(issue.values);
    case "too_small":
      return bound(issue.origin, issue.minimum, issue.inclusive !== false, "min");
    case "too_big":
      return bound(issue.origin, issue.maximum, issue.inclusive !== false, "max");
    case "invalid_union":
      return "errors" in issue ? alternatives(issue.errors) : "one of the accepted shapes";
    case "invalid_format":
      return `a string in the ${issue.format} format`;
    case "not_multiple_of":
      return `a multiple of ${issue.divisor}`;
    case "unrecognized_keys":
      return `an object without ${issue.keys.join(", ")}`;
    default:
      return issue.message ?? "a value of another kind";
  }
}

/**
 * The value an issue is about. A discriminated union's issue sits at its discriminator's path
 * (`attachments[0].type`) but reports the whole object: the discriminator's value is shown.
 */
function given(issue: z.core.$ZodIssue): unknown {
  const { input } = issue;
  const key = issue.path.at(-1);
  const discriminated = issue.code === "invalid_union" && "discriminator" in issue;
  if (discriminated && typeof input === "object" && input !== null && typeof key === "string") {
    return (input as Record<string, unknown>)[key];
  }
  return input;
}

/** One problem as a sentence: `provider.baseUrl must be a non-empty string, not ""`. */
function sentence(issue: z.core.$ZodIssue, topName: string): string {
  const where = issue.path.length === 0 ? topName : pathText(issue.path);
  if (issue.input === undefined && issue.code === "invalid_type") {
    return issue.path.length === 0
      ? `${where} must be ${issue.message}; none were given`
      : `${where} is missing: it must be ${issue.message}`;
  }
  return `${where} must be ${issue.message}, not ${shownValue(given(issue))}`;
}

/**
 * Checks `value` against `schema`.
 * @param topName what the whole value is called when it is itself wrong ("the params").
 * @returns the parsed value, or every problem as a sentence (field, what it must be, what it was).
 */
export function checkValue<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  topName: string,
): Checked<z.infer<Schema>> {
  const result = schema.safeParse(value, { reportInput: true, error: expected });
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: result.error.issues.map((issue) => sentence(issue, topName)) };
}
