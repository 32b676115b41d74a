/**
 * Every subcommand of `turnloop` in one table (its usage line, the words after its name), and
 * every flag with the commands that read it (FLAG_READERS). A usage error about the shape of a
 * subcommand's command line (an unknown or misspelt flag, a flag without its value, an unknown
 * action, a word too many or too few, a flag it does not read) ends with that subcommand's usage,
 * `(usage: …)`, and exits 64 (README, exit codes); one about a command line that names no
 * subcommand (`-p`, the interactive session) ends with `(see turnloop --help)`. A bad value of a
 * flag is named on its own (`--sandbox must be …`). What each flag means is in `USAGE`
 * (usage.ts), which says the same.
 */

import { closestName } from "../events/setting-words.js";
import { FLAGS } from "./argument-flags.js";

/** A command of `turnloop` as usage errors name it; `-p` and `interactive` are no subcommand. */
export type CommandName =
  | "-p"
  | "interactive"
  | "acp"
  | "serve"
  | "config"
  | "sessions compact"
  | `sessions ${keyof typeof SESSIONS_USAGE}`
  | "mcp list"
  | "mcp trust"
  | "mcp untrust";

/** The commands that configure a session from the command line: every face, and `config`. */
const SESSION_COMMANDS = [
  "-p",
  "interactive",
  "acp",
  "serve",
  "sessions compact",
  "config",
] as const satisfies readonly CommandName[];

const SESSIONS_TOOLS = [
  "sessions list",
  "sessions show",
  "sessions delete",
  "sessions view",
  "sessions export",
  "sessions import",
] as const satisfies readonly CommandName[];

/**
 * Which commands read each flag of FLAGS: the one place that decides it. A flag given to a
 * command that does not read it is a usage error (`acp does not take --output-format (usage: …)`,
 * exit 64) rather than ignored. The session options (the run config's flags: model, limits,
 * permissions, sandbox, prompts, MCP files, `--cwd`, `--store`) are read by every face and shown
 * by `config`; `--output-format`, `--quiet` and `--verbose` only by `-p`; `--resume` and
 * `--continue` by `-p` and the interactive session; the transport flags and those the Copilot SDK
 * passes to the CLI it starts (`--no-auto-update`, `--log-level`, …) only by the server.
 */
export const FLAG_READERS: { readonly [flag in keyof typeof FLAGS]: readonly CommandName[] } = {
  prompt: ["-p"],
  model: SESSION_COMMANDS,
  "base-url": SESSION_COMMANDS,
  store: [...SESSION_COMMANDS, ...SESSIONS_TOOLS],
  resume: ["-p", "interactive"],
  continue: ["-p", "interactive"],
  "max-turns": SESSION_COMMANDS,
  autopilot: SESSION_COMMANDS,
  "max-autopilot-continues": SESSION_COMMANDS,
  "allow-all-tools": SESSION_COMMANDS,
  "allow-tool": SESSION_COMMANDS,
  "deny-tool": SESSION_COMMANDS,
  "add-dir": SESSION_COMMANDS,
  "permission-mode": SESSION_COMMANDS,
  sandbox: SESSION_COMMANDS,
  "sandbox-network": SESSION_COMMANDS,
  headless: ["serve"],
  "no-auto-update": ["serve"],
  "no-auto-login": ["serve"],
  remote: ["serve"],
  "log-level": ["serve"],
  "auth-token-env": ["serve"],
  "session-idle-timeout": ["serve"],
  yolo: SESSION_COMMANDS,
  stdio: ["serve"],
  port: ["serve"],
  host: ["serve"],
  "output-format": ["-p"],
  cwd: [...SESSION_COMMANDS, "mcp list", "mcp trust", "mcp untrust"],
  "context-window": SESSION_COMMANDS,
  "no-instructions": SESSION_COMMANDS,
  "ignore-config-errors": [...SESSION_COMMANDS, "mcp list"],
  "mcp-config": [...SESSION_COMMANDS, "mcp list"],
  quiet: ["-p"],
  verbose: ["-p"],
  "append-system-prompt": SESSION_COMMANDS,
  "system-prompt-file": SESSION_COMMANDS,
  json: ["config", "sessions list", "mcp list"],
  out: ["sessions view", "sessions export"],
  "no-open": ["sessions view"],
  format: ["sessions export"],
  limit: ["sessions list"],
  // Answered before any command runs (arguments.ts).
  help: [...SESSION_COMMANDS, ...SESSIONS_TOOLS, "mcp list", "mcp trust", "mcp untrust"],
  version: [...SESSION_COMMANDS, ...SESSIONS_TOOLS, "mcp list", "mcp trust", "mcp untrust"],
};

/** The long names (as in FLAGS) of the flags `command` reads, by {@link FLAG_READERS}. */
export function flagsReadBy(command: CommandName): string[] {
  return Object.entries(FLAG_READERS)
    .filter(([, readers]) => readers.includes(command))
    .map(([flag]) => flag);
}

/** A subcommand's usage, how many words follow its name, and the flags it reads (FLAGS names). */
export interface Subcommand {
  usage: string;
  words: number;
  flags: readonly string[];
}

const SESSIONS_USAGE = {
  list: "turnloop sessions [list] [--json] [--limit N]",
  show: "turnloop sessions show <id>",
  delete: "turnloop sessions delete <id>",
  view: "turnloop sessions view <id> [--out F] [--no-open]",
  export: "turnloop sessions export <id> --format html|markdown|json|jsonl [--out F]",
  import: "turnloop sessions import <file | ->",
} as const;

/** `turnloop sessions <action>`; every action also takes `--store`. */
export const SESSIONS_ACTIONS = {
  list: { usage: SESSIONS_USAGE.list, words: 0, flags: flagsReadBy("sessions list") },
  show: { usage: SESSIONS_USAGE.show, words: 1, flags: flagsReadBy("sessions show") },
  delete: { usage: SESSIONS_USAGE.delete, words: 1, flags: flagsReadBy("sessions delete") },
  view: { usage: SESSIONS_USAGE.view, words: 1, flags: flagsReadBy("sessions view") },
  export: { usage: SESSIONS_USAGE.export, words: 1, flags: flagsReadBy("sessions export") },
  import: { usage: SESSIONS_USAGE.import, words: 1, flags: flagsReadBy("sessions import") },
} as const satisfies Record<keyof typeof SESSIONS_USAGE, Subcommand>;

/** `turnloop mcp <action>`. */
export const MCP_ACTIONS = {
  list: {
    usage: "turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors]",
    words: 0,
    flags: flagsReadBy("mcp list"),
  },
  trust: { usage: "turnloop mcp trust", words: 0, flags: flagsReadBy("mcp trust") },
  untrust: { usage: "turnloop mcp untrust", words: 0, flags: flagsReadBy("mcp untrust") },
} as const satisfies Record<string, Subcommand>;

/** Commands of one word that take the session options (FLAG_READERS). */
const FACE_COMMANDS: Record<string, Subcommand> = {
  acp: { usage: "turnloop acp [session options]", words: 0, flags: flagsReadBy("acp") },
  serve: {
    usage: "turnloop serve | --headless [--stdio | --port N [--host H]] [session options]",
    words: 0,
    flags: flagsReadBy("serve"),
  },
  config: {
    usage: "turnloop config [--json] [session options]",
    words: 0,
    flags: flagsReadBy("config"),
  },
};

/** `turnloop sessions compact <id> [instructions]`: any number of words after the id. */
export const SESSIONS_COMPACT: Subcommand = {
  usage: "turnloop sessions compact <id> [instructions] [session options]",
  words: 1,
  flags: flagsReadBy("sessions compact"),
};

/** The usage of `turnloop sessions` and of `turnloop mcp` when no action (or no known one) is named. */
export const GROUP_USAGE = {
  sessions:
    "turnloop sessions [list | show <id> | delete <id> | view <id> | export <id> --format F | import <file> | compact <id> [instructions]]",
  mcp: "turnloop mcp list [--json] | turnloop mcp trust | turnloop mcp untrust",
} as const;

/**
 * The usage error for a flag in `values` that `command` does not read (FLAG_READERS):
 * `acp does not take --output-format (usage: turnloop acp [session options])`, ended with
 * `(see turnloop --help)` for `-p` and the interactive session; undefined when it reads them all.
 */
export function unreadFlagsProblem(
  command: CommandName,
  values: Record<string, unknown>,
): string | undefined {
  const unread = Object.keys(values).filter(
    (flag) => !(FLAG_READERS[flag as keyof typeof FLAGS] ?? []).includes(command),
  );
  if (unread.length === 0) {
    return undefined;
  }
  const name =
    command === "interactive" ? "the interactive session (turnloop without -p)" : command;
  const given = unread.map((flag) => (flag === "prompt" ? "-p" : `--${flag}`));
  const message = `${name} does not take ${given.join(", ")}`;
  const usage = subcommandUsage(command);
  return `${message} ${usage === undefined ? "(see turnloop --help)" : `(usage: ${usage})`}`;
}

function subcommandUsage(command: CommandName): string | undefined {
  const [group = "", action = ""] = command.split(" ");
  if (command === "sessions compact") {
    return SESSIONS_COMPACT.usage;
  }
  if (group === "sessions" && Object.hasOwn(SESSIONS_ACTIONS, action)) {
    return SESSIONS_ACTIONS[action as keyof typeof SESSIONS_ACTIONS].usage;
  }
  if (group === "mcp" && Object.hasOwn(MCP_ACTIONS, action)) {
    return MCP_ACTIONS[action as keyof typeof MCP_ACTIONS].usage;
  }
  return FACE_COMMANDS[command]?.usage;
}

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
 * dashes): the closest flag the subcommand reads is suggested (`; did you mean --json?`); with
 * it, or `flag` (one without its value), a group gives the usage of its only action reading it.
 */
export function withUsage(
  message: string,
  place: { positionals: readonly string[]; headless: boolean; misspelt?: string; flag?: string },
): string {
  const subcommand = subcommandOf(place.positionals, place.headless);
  const known = subcommand === undefined ? Object.keys(FLAGS) : subcommand.flags;
  const suggestion = place.misspelt === undefined ? undefined : closestName(place.misspelt, known);
  const hint = suggestion === undefined ? "" : `; did you mean --${suggestion}?`;
  const flag = suggestion ?? place.flag;
  const usage =
    subcommand === undefined
      ? "(see turnloop --help)"
      : `(usage: ${(flag === undefined ? undefined : onlyReaderUsage(subcommand.name, flag)) ?? subcommand.usage})`;
  return `${message}${hint} ${usage}`;
}

function onlyReaderUsage(group: string, flag: string): string | undefined {
  const actions = group === "sessions" ? SESSIONS_ACTIONS : group === "mcp" ? MCP_ACTIONS : {};
  const [only, other] = Object.values<Subcommand>(actions).filter((action) =>
    action.flags.includes(flag),
  );
  return other === undefined ? only?.usage : undefined;
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
