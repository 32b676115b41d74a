/**
 * The flags of `turnloop`, their parsing with Node's `parseArgs` (strict: an unknown flag
 * throws `ERR_PARSE_ARGS_UNKNOWN_OPTION`) and the problems of the flags a command line gave: a
 * value left empty, a flag given twice, permission flags that contradict each other. What each
 * flag means is in `USAGE` (usage.ts); the range of each that takes a number, in
 * numeric-settings.ts.
 */

import { parseArgs } from "node:util";
import type { PermissionMode } from "../permissions/permission-mode.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";

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
  limit: { type: "string" },
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

/**
 * Permission flags that contradict each other on one command line: a usage error naming both,
 * never one of them silently winning. A flag over a config file's setting is no contradiction
 * (flags win), nor is an explicit `--permission-mode` over `--autopilot`'s default mode.
 * @throws UsageError when `--allow-all-tools` (or `--yolo`) comes with a `--permission-mode`
 * other than `full-access`, or `--permission-mode auto` with `--sandbox danger-full-access`.
 */
export function checkPermissionFlags(
  values: ParsedValues,
  mode: PermissionMode | undefined,
  policy: SandboxPolicy | undefined,
): void {
  const allowAll =
    values["allow-all-tools"] === true ? "--allow-all-tools" : values.yolo ? "--yolo" : undefined;
  if (allowAll !== undefined && mode !== undefined && mode !== "full-access") {
    throw new UsageError(
      `${allowAll} and --permission-mode ${mode} contradict each other ` +
        `(${allowAll} is --permission-mode full-access): give one of them`,
    );
  }
  if (mode === "auto" && policy === "danger-full-access") {
    throw new UsageError(
      "--permission-mode auto and --sandbox danger-full-access contradict each other (auto runs " +
        "commands without asking because they run in the sandbox, and danger-full-access has " +
        "none): give --permission-mode full-access to run commands unconfined without asking",
    );
  }
}
