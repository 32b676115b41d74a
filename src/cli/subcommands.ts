/**
 * Every subcommand of `turnloop` in one table: its usage line, the words after its name and the
 * flags it reads. A usage error about the shape of a subcommand's command line (an unknown or
 * misspelt flag, a flag without its value, an unknown action, a word too many or too few, and for
 * the `sessions` and `mcp` actions a flag it would ignore) ends with that subcommand's usage,
 * `(usage: …)`, and exits 64 (README, exit codes); one about a command line that names no
 * subcommand (`-p`, the interactive session) ends with `(see turnloop --help)`. A bad value of a
 * flag is named on its own (`--sandbox must be …`). What each flag means is in `USAGE`
 * (usage.ts), which says the same.
 */

import { closestName } from "../session/closest-name.js";
import { FLAGS } from "./argument-flags.js";

/**
 * A subcommand's usage, how many words follow its name, and the flags it reads, by their names in
 * FLAGS; `"face"`: the options of `-p` that configure a session (not checked one by one).
 */
export interface Subcommand {
  usage: string;
  words: number;
  flags: readonly string[] | "face";
}

/** `turnloop sessions <action>`; every action also takes `--store` (sessions-arguments.ts). */
export const SESSIONS_ACTIONS = {
  list: { usage: "turnloop sessions [list] [--json]", words: 0, flags: ["json"] },
  show: { usage: "turnloop sessions show <id>", words: 1, flags: [] },
  delete: { usage: "turnloop sessions delete <id>", words: 1, flags: [] },
  view: {
    usage: "turnloop sessions view <id> [--out F] [--no-open]",
    words: 1,
    flags: ["out", "no-open"],
  },
  export: {
    usage: "turnloop sessions export <id> --format html|markdown|json|jsonl [--out F]",
    words: 1,
    flags: ["format", "out"],
  },
  import: { usage: "turnloop sessions import <file | ->", words: 1, flags: [] },
} as const satisfies Record<string, Subcommand>;

/** `turnloop mcp <action>`. */
export const MCP_ACTIONS = {
  list: {
    usage: "turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors]",
    words: 0,
    flags: ["json", "cwd", "mcp-config", "ignore-config-errors"],
  },
  trust: { usage: "turnloop mcp trust", words: 0, flags: ["cwd"] },
} as const satisfies Record<string, Subcommand>;

/** Commands of one word that take the options of `-p` which configure a session. */
const FACE_COMMANDS: Record<string, Subcommand> = {
  acp: { usage: "turnloop acp [options of -p]", words: 0, flags: "face" },
  serve: {
    usage: "turnloop serve | --headless [--stdio | --port N [--host H]] [options of -p]",
    words: 0,
    flags: "face",
  },
  config: { usage: "turnloop config [--json] [options of -p]", words: 0, flags: "face" },
};

/** `turnloop sessions compact <id> [instructions]`: any number of words after the id. */
export const SESSIONS_COMPACT: Subcommand = {
  usage: "turnloop sessions compact <id> [instructions] [options of -p]",
  words: 1,
  flags: "face",
};

/** The usage of `turnloop sessions` and of `turnloop mcp` when no action (or no known one) is named. */
export const GROUP_USAGE = {
  sessions:
    "turnloop sessions [list | show <id> | delete <id> | view <id> | export <id> --format F | import <file> | compact <id> [instructions]]",
  mcp: "turnloop mcp list [--json] | turnloop mcp trust",
} as const;

/**
 * The subcommand `positionals` name (`["sessions", "show", …]`, `["config"]`) with its name as
 * the user would type it, `serve` for `--headless`; a group (`sessions`, `mcp`) when no action of
 * it is named, with the union of its actions' flags; undefined for `-p` and the interactive
 * session, whose usage is `turnloop --help`.
 */
export function subcommandOf(
  positionals: readonly string[],
  headless: boolean,
): (Subcommand & { name: string }) | undefined {
  const [first = "", second = ""] = positionals;
  if (first === "sessions") {
    if (second === "compact") {
      return { name: "sessions compact", ...SESSIONS_COMPACT };
    }
    return actionOf("sessions", SESSIONS_ACTIONS, second);
  }
  if (first === "mcp") {
    return actionOf("mcp", MCP_ACTIONS, second);
  }
  const command = headless ? FACE_COMMANDS.serve : FACE_COMMANDS[first];
  return command === undefined ? undefined : { name: headless ? "serve" : first, ...command };
}

function actionOf(
  group: keyof typeof GROUP_USAGE,
  actions: Record<string, Subcommand>,
  given: string,
): Subcommand & { name: string } {
  const action = Object.hasOwn(actions, given) ? actions[given] : undefined;
  if (action !== undefined) {
    return { name: `${group} ${given}`, ...action };
  }
  const flags = [...new Set(Object.values(actions).flatMap((each) => [...each.flags]))];
  return { name: group, usage: GROUP_USAGE[group], words: 0, flags };
}

/**
 * `message` ended with the usage of the subcommand `positionals` name, or with `(see turnloop
 * --help)` when they name none. For an unknown flag, `misspelt` is the name given (without
 * dashes): the closest flag the subcommand reads is suggested (`; did you mean --json?`).
 */
export function withUsage(
  message: string,
  place: { positionals: readonly string[]; headless: boolean; misspelt?: string },
): string {
  const subcommand = subcommandOf(place.positionals, place.headless);
  const known =
    subcommand === undefined || subcommand.flags === "face"
      ? Object.keys(FLAGS)
      : [...subcommand.flags, ...(place.positionals[0] === "sessions" ? ["store"] : [])];
  const suggestion = place.misspelt === undefined ? undefined : closestName(place.misspelt, known);
  const hint = suggestion === undefined ? "" : `; did you mean --${suggestion}?`;
  const usage = subcommand === undefined ? "(see turnloop --help)" : `(usage: ${subcommand.usage})`;
  return `${message}${hint} ${usage}`;
}

/**
 * What is wrong with the words and flags given to a command that takes `words` words (after its
 * name) and `flags` (names as in FLAGS), as `<problem> (usage: …)`: too few words, a word too
 * many, a flag it would ignore; undefined when nothing is.
 */
export function unexpectedArguments(
  name: string,
  given: { words: readonly string[]; values: Record<string, unknown> },
  expected: { words: number; flags: readonly string[]; usage: string },
): string | undefined {
  const extra = given.words.slice(expected.words);
  const flags = Object.keys(given.values).filter((flag) => !expected.flags.includes(flag));
  const problem =
    given.words.length < expected.words
      ? `${name} needs ${expected.words === 1 ? "an argument" : `${expected.words} arguments`}`
      : extra.length > 0
        ? `${name}: unexpected argument${extra.length === 1 ? "" : "s"} ${extra.map((word) => `"${word}"`).join(" ")}`
        : flags.length > 0
          ? `${name} does not take ${flags.map((flag) => `--${flag}`).join(", ")}`
          : undefined;
  return problem === undefined ? undefined : `${problem} (usage: ${expected.usage})`;
}
