/**
 * Parsing of `turnloop sessions …` (list, show, delete, view, export, import) and of `--store`,
 * which every command that reads or writes sessions takes. What each means is in `USAGE`
 * (usage.ts).
 */

import { isDatabaseUrl, redactDatabaseUrl } from "../session/database-url.js";
import { type ParsedValues, UsageError } from "./argument-flags.js";
import type { Command } from "./arguments.js";

/** `turnloop sessions <action> …`, with `--store` when given. */
export function sessionsCommand(rest: readonly string[], values: ParsedValues): Command {
  const command = sessionsAction(rest, values);
  return values.store === undefined ? command : { ...command, store: storeFlag(values.store) };
}

/** The `sessions` commands that read or write the session store. */
type StoreCommand = Extract<Command, { store?: string }>;

/**
 * Each `sessions` action: its usage, how many words follow it, and the flags it reads besides
 * `--store` (every one of them takes it). Anything else given to it is refused (exit 64) rather
 * than ignored: `sessions show ID extra`, `sessions list --format json`.
 */
const SESSIONS_ACTIONS = {
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
} as const satisfies Record<string, { usage: string; words: number; flags: readonly string[] }>;

type SessionsAction = keyof typeof SESSIONS_ACTIONS;

const SESSIONS_USAGE =
  "usage: turnloop sessions [list | show <id> | delete <id> | view <id> | export <id> --format F | import <file> | compact <id> [instructions]]";

/**
 * What is wrong with the words and flags given to a command that takes `words` words (after its
 * name) and `flags` (names as in FLAGS), as `<problem> (usage: …)`: too few words, a word too
 * many, a flag it would ignore; undefined when nothing is. Also used by `turnloop mcp …`.
 */
export function unexpectedArguments(
  name: string,
  given: { words: readonly string[]; values: ParsedValues },
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

function sessionsAction(rest: readonly string[], values: ParsedValues): StoreCommand {
  const [given = "list", ...words] = rest;
  if (!Object.hasOwn(SESSIONS_ACTIONS, given)) {
    throw new UsageError(SESSIONS_USAGE);
  }
  const action = given as SessionsAction;
  const { usage, words: count, flags } = SESSIONS_ACTIONS[action];
  const expected = { usage, words: count, flags: [...flags, "store"] };
  const problem = unexpectedArguments(`sessions ${action}`, { words, values }, expected);
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
  const [sessionId = ""] = words;
  switch (action) {
    case "list":
      return { kind: "sessions-list", json: values.json === true };
    case "show":
      return { kind: "sessions-show", sessionId };
    case "delete":
      return { kind: "sessions-delete", sessionId };
    case "import":
      return { kind: "sessions-import", file: sessionId };
    case "export":
      if (values.format === "jsonl") {
        return {
          kind: "sessions-export-log",
          sessionId,
          ...(values.out === undefined ? {} : { out: values.out }),
        };
      }
      return sessionsViewCommand(action, sessionId, values);
    case "view":
      return sessionsViewCommand(action, sessionId, values);
  }
}

function sessionsViewCommand(
  action: "view" | "export",
  sessionId: string,
  values: ParsedValues,
): StoreCommand {
  const out = values.out === undefined ? {} : { out: values.out };
  if (action === "view") {
    return { kind: "sessions-view", sessionId, open: values["no-open"] !== true, ...out };
  }
  const format = values.format;
  if (format !== "html" && format !== "markdown" && format !== "json") {
    throw new UsageError(
      format === undefined
        ? "sessions export needs --format html, markdown, json or jsonl"
        : `--format must be html, markdown, json or jsonl, not "${format}"`,
    );
  }
  return { kind: "sessions-export", sessionId, format, ...out };
}

/** `--store URL`: a PostgreSQL URL (shown without its password when refused). */
export function storeFlag(value: string): string {
  if (!isDatabaseUrl(value)) {
    throw new UsageError(
      `--store must be a postgres:// or postgresql:// URL, not "${redactDatabaseUrl(value)}"`,
    );
  }
  return value;
}
