/**
 * How a mistyped or invalid setting is said, on every face and at every layer: the known name a
 * mistyped one was meant to be, for "did you mean" hints (on the command line,
 * cli/argument-suggestions.ts; in the config files, session/config-problems.ts; in an MCP server
 * entry, tools/mcp/config.ts), and an invalid value as a plain sentence (`must be a list ([…]),
 * not the string "-y"`). Here, at the lowest layer, so that the MCP module (tools/) and the config
 * module (session/) word their problems alike; `zod` is imported for its types only.
 */

import type { z } from "zod";
import { urlPortProblem } from "./url-port.js";

/**
 * The known name `name` starts (3+ characters given), else the nearest spelling when it is close
 * (Levenshtein distance at most 2, or a third of the name's length), else undefined.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const nearest = known
    .map((option) => ({ option, distance: editDistance(name, option) }))
    .sort((left, right) => left.distance - right.distance)[0];
  // A name cut short (`--allow-all`) names the one it starts; else the nearest spelling.
  const prefixed = known.find((option) => name.length >= 3 && option.startsWith(name));
  const near =
    nearest !== undefined && nearest.distance <= Math.max(2, Math.floor(name.length / 3))
      ? nearest.option
      : undefined;
  return prefixed ?? near;
}

/** Levenshtein distance between two short strings. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

/** What a JSON value is, in words: `a string`, `a whole number`, `an array` … */
export function kindOf(value: unknown): string {
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  if (typeof value === "number") {
    return Number.isInteger(value) ? `the number ${value}` : `the fraction ${value}`;
  }
  if (typeof value === "string") {
    return `the string ${JSON.stringify(value)}`;
  }
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

/** zod's name of an expected type, in words. */
const EXPECTED: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "a string",
  boolean: "true or false",
  array: "a list ([…])",
  object: "an object ({…})",
  record: "an object ({…})",
};

/** The value at `path` in `json`. */
function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of path) {
    value =
      typeof value === "object" && value !== null
        ? (value as Record<PropertyKey, unknown>)[key]
        : undefined;
  }
  return value;
}

/**
 * One invalid value of a config file as a plain sentence, as the flags' checks word theirs
 * (`must be at least 1, not the number 0`); a message the schema wrote itself
 * is kept. `json` is the file's parsed content, `issue` zod's report about it.
 */
export function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  const value = valueAt(json, issue.path);
  const own = !/^(Invalid|Too (small|big))/.test(issue.message);
  if (own) {
    return issue.message;
  }
  switch (issue.code) {
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      // `positive()` is `> 0`: its bound is not a value it takes.
      const side =
        issue.inclusive === false
          ? issue.code === "too_small"
            ? "more than"
            : "less than"
          : issue.code === "too_small"
            ? "at least"
            : "at most";
      if (issue.origin === "number") {
        return `must be ${side} ${String(bound)}, not ${kindOf(value)}`;
      }
      const unit = issue.origin === "string" ? "character" : "item";
      return `must have ${side} ${String(bound)} ${unit}${bound === 1 ? "" : "s"}`;
    }
    case "invalid_type":
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(value)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((option) => JSON.stringify(option)).join(", ")}, not ${kindOf(value)}`;
    case "invalid_format":
      return issue.format === "url"
        ? `${typeof value === "string" ? JSON.stringify(value) : kindOf(value)} ${(typeof value === "string" ? urlPortProblem(value) : undefined) ?? "is not an http:// or https:// URL"} (e.g. http://127.0.0.1:8000/v1)`
        : `${kindOf(value)} is not ${issue.format === "regex" ? "in the expected form" : `a valid ${issue.format}`}`;
    default:
      return `${kindOf(value)} is not a valid value here`;
  }
}
