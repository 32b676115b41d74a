/**
 * Readable reports of what is wrong in a config file (config.ts): unknown keys with the closest
 * known key at their level (JSON syntax errors with line and column: events/errors.ts).
 */

import type { z } from "zod";
import { closestName } from "./closest-name.js";

/**
 * The config sections whose unknown keys are errors (config.ts): going on without the deny list
 * or the confinement the user meant to write is unsafe.
 */
const GUARDING_SECTIONS = ["permissions", "sandbox"] as const;

/** A section of {@link GUARDING_SECTIONS}. */
export type GuardingSection = (typeof GUARDING_SECTIONS)[number];

function isGuardingSection(name: string | undefined): name is GuardingSection {
  return GUARDING_SECTIONS.some((section) => section === name);
}

/** One unknown key of a config file. */
export interface UnknownKey {
  /** Its dotted path, e.g. `permissions.alow`. */
  key: string;
  /** The known key it was probably meant to be, dotted (`permissions.allow`). */
  suggestion?: string;
  /**
   * The guarding section (`permissions`, `sandbox`) it is in, or that it misspells at the top
   * level; absent for any other key.
   */
  guarding?: GuardingSection;
}

/**
 * The unknown keys that zod's `unrecognized_keys` issues of `schema` name, each with the
 * closest known key at its level (closest-name.ts).
 */
export function unknownKeys(schema: z.ZodType, issues: readonly z.core.$ZodIssue[]): UnknownKey[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "unrecognized_keys") {
      return [];
    }
    const level = issue.path.map(String);
    const known = Object.keys(shapeAt(schema, level));
    return issue.keys.map((key) => {
      const near = closestName(key, known);
      const path = [...level, key].join(".");
      const section = level.length === 0 ? near : level[0];
      return {
        key: path,
        ...(near === undefined ? {} : { suggestion: [...level, near].join(".") }),
        ...(isGuardingSection(section) ? { guarding: section } : {}),
      };
    });
  });
}

/** The object shape `path` leads to in `schema` (through optionals and records), or none. */
function shapeAt(schema: z.ZodType, path: readonly string[]): Record<string, unknown> {
  let current: unknown = schema;
  let rest = path;
  for (;;) {
    const definition = (current as { _zod?: { def?: SchemaDefinition } })._zod?.def;
    if (definition === undefined) {
      return {};
    }
    switch (definition.type) {
      case "optional":
      case "nullable":
      case "default":
        current = definition.innerType;
        continue;
      case "record":
        if (rest.length === 0) {
          return {};
        }
        current = definition.valueType;
        rest = rest.slice(1);
        continue;
      case "object": {
        const [next, ...after] = rest;
        if (next === undefined) {
          return definition.shape ?? {};
        }
        current = definition.shape?.[next];
        rest = after;
        continue;
      }
      default:
        return {};
    }
  }
}

/** The parts of a zod schema's definition {@link shapeAt} walks. */
interface SchemaDefinition {
  type: string;
  innerType?: unknown;
  valueType?: unknown;
  shape?: Record<string, unknown>;
}

/** What a JSON value is, in words: `a string`, `a whole number`, `an array` … */
function kindOf(value: unknown): string {
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
      const side = issue.code === "too_small" ? "at least" : "at most";
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
        ? `${typeof value === "string" ? JSON.stringify(value) : kindOf(value)} is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)`
        : `${kindOf(value)} is not ${issue.format === "regex" ? "in the expected form" : `a valid ${issue.format}`}`;
    default:
      return `${kindOf(value)} is not a valid value here`;
  }
}
