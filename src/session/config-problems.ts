/**
 * Readable reports of what is wrong in a config file (config.ts): unknown keys with the closest
 * known key at their level (JSON syntax errors with line and column: events/errors.ts; an invalid
 * value's sentence: events/setting-words.ts `describeIssue`, which the MCP module's parser of
 * server entries, a layer below, words its problems with too).
 */

import type { z } from "zod";
import { closestName } from "../events/setting-words.js";

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
 * closest known key at its level (events/setting-words.ts).
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
