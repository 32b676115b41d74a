/**
 * Suggestions after a typo on the command line: the closest flag or (sub)command, by prefix or
 * edit distance, in one line of a usage error.
 */

import { errorMessage } from "../events/errors.js";
import { closestName as closest } from "../events/setting-words.js";
import { wordsOf } from "./argument-flags.js";
import { isNumericFlag, numericFlagProblem } from "./numeric-settings.js";
import { MCP_ACTIONS, withUsage } from "./subcommands.js";

/**
 * The usage error for a command line `parseArgs` refused (`argv` as given to it): an unknown
 * flag, with the closest flag the command reads, or a flag without its value; ended with the
 * usage of the subcommand it names (subcommands.ts), or `(see turnloop --help)`. Undefined for
 * another error.
 */
export function parseErrorMessage(error: unknown, argv: readonly string[]): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const message = errorMessage(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const given = /'(-{1,2}[^'=]+)/.exec(message)?.[1];
    return given === undefined
      ? undefined
      : withUsage(`unknown option ${given}`, {
          ...wordsOf(argv),
          misspelt: given.replace(/^-+/, ""),
        });
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    // `Option '-m, --model <value>' argument missing`, or `… argument is ambiguous` when the
    // next word starts with a dash.
    const flag = /--[a-z-]+/.exec(message)?.[0];
    if (flag === undefined) {
      return undefined;
    }
    const ambiguous = message.includes("ambiguous");
    const name = flag.slice(2);
    if (ambiguous && isNumericFlag(name)) {
      // `--max-turns -1`: the number the user meant is refused as `--max-turns=-1` would be.
      const value = argv[argv.indexOf(flag) + 1] ?? "";
      return numericFlagProblem(name, value);
    }
    const needs = isNumericFlag(name) ? "a number" : "a value";
    const problem = ambiguous
      ? `${flag} needs ${needs}; to give one that starts with "-", write ${flag}=VALUE`
      : `${flag} needs ${needs}`;
    return withUsage(problem, { ...wordsOf(argv), flag: name });
  }
  return undefined;
}

/** Commands and their subcommands, for suggestions after a typo. */
export const COMMANDS = ["acp", "serve", "config", "sessions", "mcp"];
export const MCP_COMMANDS = Object.keys(MCP_ACTIONS);

/**
 * For positionals that are no command: a command given an extra word (`config x`) names that
 * word; else the word, and the closest command if one is close, or `fallback` (a hint that
 * starts with `; `).
 */
export function unknownCommandMessage(positionals: readonly string[], fallback: string): string {
  const [first = "", second] = positionals;
  if (COMMANDS.includes(first) && second !== undefined) {
    return withUsage(`${first}: unexpected argument "${second}"`, {
      positionals,
      headless: false,
    });
  }
  const hint = commandHint(first, COMMANDS) || fallback;
  return `unknown command "${first}"${hint} (see turnloop --help)`;
}

/**
 * What is wrong with `-p PROMPT` given with a command's word (`turnloop -p hi config`) or with
 * `--headless`: both were understood, and a prompt is no subcommand; undefined when there is
 * neither. A word that is only the prompt (`turnloop -p config`) is no command.
 */
export function promptWithCommandProblem(
  prompt: string,
  positionals: readonly string[],
  headless: boolean,
): string | undefined {
  const first = positionals[0];
  const named = first !== undefined && COMMANDS.includes(first);
  if (!named && !headless) {
    return undefined;
  }
  const given = prompt === "-" ? "-p - (a prompt from stdin)" : `-p "${prompt}" (one prompt)`;
  const command = named ? `the command ${positionals.join(" ")}` : "--headless (the server)";
  const quoted =
    named && prompt !== "-"
      ? `, or quote the prompt whole: -p "${[prompt, ...positionals].join(" ")}"`
      : "";
  return `understood ${given} and ${command}; give one of them${quoted} (see turnloop --help)`;
}

/** `; did you mean X?` for a mistyped (sub)command, or nothing when none is close. */
export function commandHint(given: string, known: readonly string[]): string {
  const suggestion = closest(given, known);
  return suggestion === undefined ? "" : `; did you mean ${suggestion}?`;
}
