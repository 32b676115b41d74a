/**
 * The range of every flag and environment variable that takes a number, checked in one place: a
 * value is written in decimal digits only and lies within its range, else it is a usage error
 * (exit 64) naming the flag or variable, its range and the value.
 */

import { UsageError } from "./argument-flags.js";

/** A numeric flag: the smallest and largest values it allows and what its number counts. */
interface NumericFlag {
  min: number;
  max?: number;
  /** What the number is, for the message: `model requests per prompt`. */
  counts: string;
}

/**
 * Every flag that takes a number, by its name in `FLAGS` (argument-flags.ts), with the range it
 * allows: checked in one place ({@link numericFlag}). A value is written in decimal digits only:
 * `0x10`, `1e3`, `1.5`, `-1`, an empty string and words are refused (exit 64) rather than read as
 * JavaScript's `Number()` would (`""` as 0).
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
  // `sessions list --limit N`: the newest N sessions.
  limit: { min: 1, counts: "sessions listed" },
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
  // Past the largest whole number a double holds exactly, the bound a flag without one has.
  const max = spec.max ?? (number > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : undefined);
  const range = max === undefined ? `≥ ${spec.min}` : `from ${spec.min} to ${max}`;
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
  // src/protocol/hooks.ts, hookTimeoutMs: the server's wait for an app's hooks.invoke.
  TURNLOOP_HOOK_TIMEOUT_MS: {
    min: 1,
    counts: "milliseconds the server waits for an app's hook",
    readBy: ["server", "config"],
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
