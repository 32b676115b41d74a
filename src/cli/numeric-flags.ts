/**
 * The flags of `turnloop` that take a number, with the range each allows, checked in one place.
 * A value must be written as decimal digits only: `0x10`, `1e3`, `1.5`, `-1`, an empty string
 * and words are refused (exit 64) rather than read as JavaScript's `Number()` would (`""` as 0).
 */

import { UsageError } from "./argument-flags.js";

/** A numeric flag: the smallest and largest values it allows and what its number counts. */
interface NumericFlag {
  min: number;
  max?: number;
  /** What the number is, for the message: `model requests per prompt`. */
  counts: string;
}

/** Every flag that takes a number, by its name in FLAGS (argument-flags.ts). */
export const NUMERIC_FLAGS = {
  // 0 would send no request at all and stop at once with max_turn_requests (exit 2).
  "max-turns": { min: 1, counts: "model requests per prompt" },
  // 0 is a real choice: offer task_complete but never nudge (exit 2 when the model stops early).
  "max-autopilot-continues": { min: 0, counts: "nudges in autopilot" },
  // No model has a window under 1,000 tokens.
  "context-window": { min: 1_000, counts: "tokens" },
  // 0: a free port, chosen by the system and printed.
  port: { min: 0, max: 65_535, counts: "a TCP port" },
} as const satisfies Record<string, NumericFlag>;

export type NumericFlagName = keyof typeof NUMERIC_FLAGS;

/** Whether `name` (as in FLAGS) takes a number. */
export function isNumericFlag(name: string): name is NumericFlagName {
  return Object.hasOwn(NUMERIC_FLAGS, name);
}

/**
 * What is wrong with `value` for `--name`: `--max-turns must be a whole number ≥ 1 (model requests
 * per prompt), not "0"`; undefined when it is a number in the flag's range.
 */
export function numericFlagProblem(name: NumericFlagName, value: string): string | undefined {
  const flag: NumericFlag = NUMERIC_FLAGS[name];
  const number = Number(value);
  if (
    /^\d+$/.test(value) &&
    number >= flag.min &&
    number <= (flag.max ?? Number.MAX_SAFE_INTEGER)
  ) {
    return undefined;
  }
  const range = flag.max === undefined ? `≥ ${flag.min}` : `from ${flag.min} to ${flag.max}`;
  return `--${name} must be a whole number ${range} (${flag.counts}), not "${value}"`;
}

/**
 * The number `--name` was given, or `fallback` when it was not given.
 * @throws UsageError when the value is no whole number in the flag's range.
 */
export function numericFlag(
  name: NumericFlagName,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) {
    return fallback;
  }
  const problem = numericFlagProblem(name, value);
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
  return Number(value);
}
