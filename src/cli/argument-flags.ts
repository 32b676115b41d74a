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
  resume: { type: "string", short: "r" },
  continue: { type: "boolean", short: "c" },
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

/** Whether `argv[index]` is a `--resume` (`-r`) without an id (last, or before another flag). */
function isBareResume(argv: readonly string[], index: number): boolean {
  const [word = "", next] = [argv[index], argv[index + 1]];
  return /^(?:--resume|-r)$/.test(word) && (next === undefined || next.startsWith("-"));
}

/**
 * `--resume` (`-r`) with no id (last, or before another flag): the interactive picker. Such an
 * occurrence is left out before parsing, since `--resume` otherwise takes a value.
 */
export function resumeWithoutId(argv: readonly string[]): boolean {
  return argv.some((_, index) => isBareResume(argv, index));
}

/**
 * Parses `argv` against {@link FLAGS}, leaving out a `--resume` without an id.
 * @throws the `parseArgs` error (a `code` such as `ERR_PARSE_ARGS_UNKNOWN_OPTION`), or a
 * {@link UsageError} for a flag that names something given an empty or blank value (see
 * {@link emptyValueProblem}), or a single-valued flag given twice with different values (see
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
  const problem = emptyValueProblem(parsed.tokens) ?? repeatedFlagProblem(parsed.tokens);
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
  const { values, positionals } = parsed;
  return { values, positionals };
}

/** A word that reads as a flag: `-v`, `--model`, `--model=x` (no space before a `=`). */
const FLAG_SHAPE = /^--?[A-Za-z][A-Za-z0-9-]*(?:=[\s\S]*)?$/;

/**
 * `-p`/`--prompt` and a word that starts with `-` but is no flag (`-p "- fix the bug"`, front
 * matter `---`, `-p "-1 is negative?"`) as `--prompt=<word>`, which `parseArgs` takes (it refuses
 * the two words as ambiguous). A word shaped like a flag (`-p --continue`) stays a flag.
 */
export function withDashPrompts(argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? "";
    const next = argv[index + 1];
    const prompt =
      (argument === "-p" || argument === "--prompt") &&
      next !== undefined &&
      next.startsWith("-") &&
      next !== "-" &&
      !FLAG_SHAPE.test(next);
    joined.push(prompt ? `--prompt=${next}` : argument);
    index += prompt ? 1 : 0;
  }
  return joined;
}

/** `-p -` as {@link withPromptFromStdin} writes it. */
export const STDIN_PROMPT = "--prompt=-";

/** `-p` / `--prompt` without text (last, or before another flag) means `-p -`: read stdin. */
export function withPromptFromStdin(argv: readonly string[]): string[] {
  return argv.map((argument, index) => {
    const next = argv[index + 1];
    const bare = next === undefined || (next.startsWith("-") && next !== "-");
    return (argument === "-p" || argument === "--prompt") && bare ? STDIN_PROMPT : argument;
  });
}

/**
 * A `-p` given without text before other flags (in `argv`; {@link withPromptFromStdin} made it
 * `-p -` in `args`) whose one word left comes after it is the prompt: `turnloop -p --continue
 * "…"`, as `claude -p` (a switch there) is often written. Else `parsed` as it is (`-p` alone
 * reads stdin; `config -p` is a prompt from stdin and a command).
 */
export function trailingPrompt(
  parsed: ReturnType<typeof parseFlags>,
  argv: readonly string[],
  args: readonly string[],
): Pick<ReturnType<typeof parseFlags>, "values" | "positionals"> {
  const bare = args.findIndex((arg, index) => arg === STDIN_PROMPT && argv[index] !== arg);
  const [prompt, ...rest] = parsed.positionals;
  return bare !== -1 && prompt !== undefined && rest.length === 0 && argv.indexOf(prompt) > bare
    ? { values: { ...parsed.values, prompt }, positionals: [] }
    : parsed;
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

/**
 * What each flag that names something needs, for {@link emptyValueProblem}. Flags with a list of
 * choices or a number say what they take in their own checks; `--append-system-prompt` may add
 * nothing; the Copilot SDK's `--log-level`, `--auth-token-env` and `--session-idle-timeout`
 * are accepted unread.
 */
const NAMED_VALUES: Partial<Record<keyof typeof FLAGS, string>> = {
  resume: "a session id (turnloop sessions lists them)",
  model: "a model as <provider>:<model> (e.g. openai:gpt-5)",
  "base-url": "an http:// or https:// URL",
  store: "a postgres:// or postgresql:// URL",
  cwd: "a folder",
  "add-dir": "a folder",
  "mcp-config": "a file",
  "system-prompt-file": "a file",
  host: "an address to listen on",
  out: "a file",
};

/**
 * A flag of {@link NAMED_VALUES} given an empty or blank value (`--resume ''`, `--cwd=`, `-m ' '`),
 * which would otherwise be read as a prefix of every session id, the current folder or no
 * model: `--resume needs a session id (turnloop sessions lists them), not ""`, named as typed.
 * Undefined when there is none.
 */
function emptyValueProblem(tokens: readonly FlagToken[]): string | undefined {
  for (const token of tokens) {
    const needs = NAMED_VALUES[token.name as keyof typeof FLAGS];
    if (token.kind === "option" && needs !== undefined && token.value?.trim() === "") {
      return `${token.rawName ?? `--${token.name}`} needs ${needs}, not "${token.value}"`;
    }
  }
  return undefined;
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
  return rangeProblem(`--${name}`, NUMERIC_FLAGS[name], value);
}

/** `<label> must be a whole number ≥ 1 (…), not "0"`, or undefined for a value in range. */
function rangeProblem(label: string, spec: NumericFlag, value: string): string | undefined {
  const number = Number(value);
  if (
    /^\d+$/.test(value) &&
    number >= spec.min &&
    number <= (spec.max ?? Number.MAX_SAFE_INTEGER)
  ) {
    return undefined;
  }
  const range = spec.max === undefined ? `≥ ${spec.min}` : `from ${spec.min} to ${spec.max}`;
  return `${label} must be a whole number ${range} (${spec.counts}), not "${value}"`;
}

/** The commands (Command kinds, arguments.ts) whose sessions make model requests, and `config`. */
const MODEL_COMMANDS = [
  "prompt",
  "interactive",
  "acp",
  "server",
  "sessions-compact",
  "config",
] as const;

/** A numeric environment variable: its range as a flag's, and the commands that read it. */
interface NumericVariable extends NumericFlag {
  readBy: readonly string[];
}

/**
 * Every numeric environment variable turnloop reads, with its range (the same rules as
 * {@link NUMERIC_FLAGS}: decimal digits only, within the range; set to an empty string counts as
 * unset) and the commands (Command kinds) that check it before anything runs, `config` among them
 * since it shows what a session would get. A bad value is a usage error (exit 64) naming the
 * variable, its range and the value ({@link numericVariableProblem}); `turnloop acp` still
 * answers `initialize` and reports it on every session request (src/cli/run.ts, runAcpFace).
 */
export const NUMERIC_VARIABLES = {
  TURNLOOP_CONTEXT_WINDOW: {
    ...NUMERIC_FLAGS["context-window"],
    counts: "tokens, as --context-window",
    readBy: MODEL_COMMANDS,
  },
  // The protocol faces' framing (src/session/message-size.ts).
  TURNLOOP_MAX_MESSAGE_BYTES: {
    min: 1,
    counts: "bytes in one protocol message",
    readBy: ["acp", "server", "config"],
  },
  // src/session/host-models.ts
  TURNLOOP_MAX_RETRIES: {
    min: 0,
    counts: "retries of a failed model request",
    readBy: MODEL_COMMANDS,
  },
  TURNLOOP_RETRY_BASE_DELAY_MS: {
    min: 0,
    counts: "milliseconds before the first retry",
    readBy: MODEL_COMMANDS,
  },
  // 0 would time out every stream at once (src/llm/http-fetch.ts refuses it).
  TURNLOOP_STREAM_IDLE_TIMEOUT_MS: {
    min: 1,
    counts: "milliseconds a model's stream may stay silent",
    readBy: MODEL_COMMANDS,
  },
  // src/session/mcp-servers.ts, startupWaitFrom
  TURNLOOP_MCP_STARTUP_WAIT_MS: {
    min: 0,
    counts: "milliseconds to wait for MCP servers to start",
    readBy: [...MODEL_COMMANDS, "mcp-list"],
  },
} as const satisfies Record<string, NumericVariable>;

/**
 * The first numeric variable of `env` that `command` (a Command kind) reads and that is out of
 * its range, as `{ name, message }`: `TURNLOOP_CONTEXT_WINDOW must be a whole number ≥ 1000
 * (tokens, as --context-window), not "abc"`; undefined when there is none.
 */
export function numericVariableProblem(
  env: NodeJS.ProcessEnv,
  command: string,
): { name: string; message: string } | undefined {
  for (const [name, spec] of Object.entries(NUMERIC_VARIABLES)) {
    const value = env[name];
    const readers: readonly string[] = spec.readBy;
    if (value === undefined || value === "" || !readers.includes(command)) {
      continue;
    }
    const message = rangeProblem(name, spec, value);
    if (message !== undefined) {
      return { name, message };
    }
  }
  return undefined;
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
