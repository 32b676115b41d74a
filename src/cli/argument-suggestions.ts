/**
 * Suggestions after a typo on the command line: the closest flag or (sub)command, by prefix or
 * edit distance, in one line of a usage error.
 */

import { errorMessage } from "../events/errors.js";
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

/** The known name `name` starts (3+ characters given), else the nearest spelling if close. */
function closest(name: string, known: readonly string[]): string | undefined {
  const nearest = known
    .map((option) => ({ option, distance: editDistance(name, option) }))
    .sort((left, right) => left.distance - right.distance)[0];
  // A name cut short (`--allow-all`) names the one it starts; else the nearest spelling.
  const prefixed = known.find((option) => name.length >= 3 && option.startsWith(name));
  const near =
    nearest !== undefined && nearest.distance <= Math.max(2, Math.floor(name.length / 3))
      ? nearest.option
      : undefined;
  return prefixed ?? near;
}

/** Levenshtein distance between two short strings. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
