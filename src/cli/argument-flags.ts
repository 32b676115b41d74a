/**
 * The flags of `turnloop` and their parsing with Node's `parseArgs` (strict: an unknown flag
 * throws `ERR_PARSE_ARGS_UNKNOWN_OPTION`). What each flag means is in `USAGE` (usage.ts).
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
 * @throws the `parseArgs` error (a `code` such as `ERR_PARSE_ARGS_UNKNOWN_OPTION`).
 */
export function parseFlags(argv: readonly string[]) {
  return parseArgs({
    args: argv.filter((_, index) => !isBareResume(argv, index)),
    allowPositionals: true,
    strict: true,
    options: FLAGS,
  });
}
