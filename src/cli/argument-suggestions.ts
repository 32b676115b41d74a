/**
 * Suggestions after a typo on the command line: the closest flag or (sub)command, by prefix or
 * edit distance, in one line of a usage error.
 */

import { errorMessage } from "../events/errors.js";
import { closestName as closest } from "../session/closest-name.js";
import { FLAGS } from "./argument-flags.js";

/** For an unknown flag: one line naming it and the closest valid flag, if one is close. */
export function unknownOptionMessage(error: unknown): string | undefined {
  if ((error as NodeJS.ErrnoException).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    return undefined;
  }
  const match = /'(-{1,2}[^'=]+)/.exec(errorMessage(error));
  const given = match?.[1];
  if (given === undefined) {
    return undefined;
  }
  const suggestion = closest(given.replace(/^-+/, ""), Object.keys(FLAGS));
  const hint = suggestion === undefined ? "" : `; did you mean --${suggestion}?`;
  return `unknown option ${given}${hint} (see turnloop --help)`;
}

/** Commands and their subcommands, for suggestions after a typo. */
export const COMMANDS = ["acp", "serve", "config", "sessions", "mcp"];
export const MCP_COMMANDS = ["list", "trust"];

/**
 * For positionals that are no command: a command given an extra word (`config x`) names that
 * word; else the word, and the closest command if one is close, or `fallback` (a hint that
 * starts with `; `).
 */
export function unknownCommandMessage(positionals: readonly string[], fallback: string): string {
  const [first = "", second] = positionals;
  if (COMMANDS.includes(first) && second !== undefined) {
    return `${first} takes no argument "${second}"; see turnloop --help`;
  }
  const hint = commandHint(first, COMMANDS) || fallback;
  return `unknown command "${first}"${hint} (see turnloop --help)`;
}

/** `; did you mean X?` for a mistyped (sub)command, or nothing when none is close. */
export function commandHint(given: string, known: readonly string[]): string {
  const suggestion = closest(given, known);
  return suggestion === undefined ? "" : `; did you mean ${suggestion}?`;
}
