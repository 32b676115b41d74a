/**
 * The flags of `turnloop`, their parsing with Node's `parseArgs` (strict: an unknown flag
 * throws `ERR_PARSE_ARGS_UNKNOWN_OPTION`) and the range of each that takes a number. What each
 * flag means is in `USAGE` (usage.ts).
 */

import { parseArgs } from "node:util";

/** Thrown for a command line we cannot run; the message is for the user. */
export class UsageError extends Error {}

/** Every flag `turnloop` accepts, as `parseArgs` options. */
export const FLAGS = {
  prompt: { type: "string", short: "p" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  store: { type: "string" },
  resume: { type: "string" },
  continue: { type: "boolean" },
  "max-turns": { type: "string" },
  autopilot: { type: "boolean" },
  "max-autopilot-continues": { type: "string" },
  "allow-all-tools": { type: "boolean" },
  "allow-tool": { type: "string", multiple: true },
  "deny-tool": { type: "string", multiple: true },
  "add-dir": { type: "string", multiple: true },
  "permission-mode": { type: "string" },
  sandbox: { type: "string" },
  "sandbox-network": { type: "boolean" },
  headless: { type: "boolean" },
  // Flags the Copilot SDK passes to the CLI it starts; accepted so it can start turnloop.
  "no-auto-update": { type: "boolean" },
  "no-auto-login": { type: "boolean" },
  remote: { type: "boolean" },
  "log-level": { type: "string" },
  "auth-token-env": { type: "string" },
  "session-idle-timeout": { type: "string" },
  // The Copilot CLI's name for --allow-all-tools; apps pass it in their connection args.
  yolo: { type: "boolean" },
  stdio: { type: "boolean" },
  port: { type: "string" },
  host: { type: "string" },
  "output-format": { type: "string" },
  cwd: { type: "string" },
  "context-window": { type: "string" },
  "no-instructions": { type: "boolean" },
  "ignore-config-errors": { type: "boolean" },
  "mcp-config": { type: "string", multiple: true },
  quiet: { type: "boolean", short: "q" },
  verbose: { type: "boolean" },
  "append-system-prompt": { type: "string" },
  "system-prompt-file": { type: "string" },
  json: { type: "boolean" },
  out: { type: "string" },
  "no-open": { type: "boolean" },
  format: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

/** The flags a command line gave, typed by {@link FLAGS}. */
export type ParsedValues = ReturnType<typeof parseFlags>["values"];

/** Whether `argv[index]` is a `--resume` without an id (last, or before another flag). */
function isBareResume(argv: readonly string[], index: number): boolean {
  const next = argv[index + 1];
  return argv[index] === "--resume" && (next === undefined || next.startsWith("-"));
}

/**
 * `--resume` with no id (last, or before another flag): the interactive picker. Such an
 * occurrence is left out before parsing, since `--resume` otherwise takes a value.
 */
export function resumeWithoutId(argv: readonly string[]): boolean {
  return argv.some((_, index) => isBareResume(argv, index));
}

/**
 * Parses `argv` against {@link FLAGS}, leaving out a `--resume` without an id.
 * @throws the `parseArgs` error (a `code` such as `ERR_PARSE_ARGS_UNKNOWN_OPTION`), or a
 * {@link UsageError} for a single-valued flag given twice with different values (see
 * {@link repeatedFlagProblem}).
 */
export function parseFlags(argv: readonly string[]) {
  const parsed = parseArgs({
    args: argv.filter((_, index) => !isBareResume(argv, index)),
    allowPositionals: true,
    strict: true,
    options: FLAGS,
    tokens: true,
  });
  const problem = repeatedFlagProblem(parsed.tokens);
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
  const { values, positionals } = parsed;
  return { values, positionals };
}

/**
 * The words and `--headless` of a command line {@link parseFlags} refused, read leniently (an
 * unknown flag taken as a boolean), to tell which subcommand the user meant.
 */
export function wordsOf(argv: readonly string[]): { positionals: string[]; headless: boolean } {
  const { values, positionals } = parseArgs({
    args: argv.filter((_, index) => !isBareResume(argv, index)),
    allowPositionals: true,
    strict: false,
    options: FLAGS,
  });
  return { positionals, headless: values.headless === true };
}

/** One flag of the command line as `parseArgs` saw it. */
interface FlagToken {
  kind: string;
  name?: string;
  rawName?: string;
  value?: string | undefined;
}

/**
 * A flag of {@link FLAGS} without `multiple` given more than once with different values, which
 * `parseArgs` would settle silently by taking the last: `--model given twice (a, b)`, named as
 * first typed (`-m`, `--model`). The same value again (a boolean flag repeated, a flag an alias
 * or wrapper adds once more) is no problem. Undefined when there is none.
 */
function repeatedFlagProblem(tokens: readonly FlagToken[]): string | undefined {
  const given = new Map<string, { rawName: string; values: string[] }>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined) {
      continue;
    }
    // strict parsing has refused any name FLAGS does not have
    const spec = FLAGS[token.name as keyof typeof FLAGS];
    if ("multiple" in spec) {
      continue;
    }
    const seen = given.get(token.name) ?? {
      rawName: token.rawName ?? `--${token.name}`,
      values: [],
    };
    seen.values.push(token.value ?? "");
    given.set(token.name, seen);
  }
  for (const { rawName, values } of given.values()) {
    if (new Set(values).size > 1) {
      const times = values.length === 2 ? "twice" : `${values.length} times`;
      return `${rawName} given ${times} (${values.join(", ")})`;
    }
  }
  return undefined;
}

/** A numeric flag: the smallest and largest values it allows and what its number counts. */
interface NumericFlag {
  min: number;
  max?: number;
  /** What the number is, for the message: `model requests per prompt`. */
  counts: string;
}

/**
 * Every flag that takes a number, by its name in {@link FLAGS}, with the range it allows: checked
 * in one place ({@link numericFlag}). A value is written in decimal digits only: `0x10`, `1e3`,
 * `1.5`, `-1`, an empty string and words are refused (exit 64) rather than read as JavaScript's
 * `Number()` would (`""` as 0).
 */
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
