/**
 * Parsing of `turnloop sessions …` (list, show, delete, view, export, import) and of `--store`,
 * which every command that reads or writes sessions takes. What each means is in `USAGE`
 * (usage.ts).
 */

import { isDatabaseUrl, redactDatabaseUrl } from "../llm/shown-values.js";
import { type ParsedValues, UsageError } from "./argument-flags.js";
import { commandHint } from "./argument-suggestions.js";
import type { Command } from "./arguments.js";
import { numericFlag } from "./numeric-settings.js";
import {
  GROUP_USAGE,
  SESSIONS_ACTIONS,
  SESSIONS_COMPACT,
  unexpectedArguments,
} from "./subcommands.js";

/** `turnloop sessions <action> …`, with `--store` when given. */
export function sessionsCommand(rest: readonly string[], values: ParsedValues): Command {
  const command = sessionsAction(rest, values);
  return values.store === undefined ? command : { ...command, store: storeFlag(values.store) };
}

/** The `sessions` commands that read or write the session store. */
type StoreCommand = Extract<Command, { store?: string }>;

type SessionsAction = keyof typeof SESSIONS_ACTIONS;

function sessionsAction(rest: readonly string[], values: ParsedValues): StoreCommand {
  const [given = "list", ...words] = rest;
  if (!Object.hasOwn(SESSIONS_ACTIONS, given)) {
    const actions = [...Object.keys(SESSIONS_ACTIONS), "compact"];
    throw new UsageError(
      given === "compact"
        ? `sessions compact needs an argument (usage: ${SESSIONS_COMPACT.usage})`
        : `unknown sessions command "${given}"${commandHint(given, actions)} (usage: ${GROUP_USAGE.sessions})`,
    );
  }
  const action = given as SessionsAction;
  const problem = unexpectedArguments(
    `sessions ${action}`,
    { words, values },
    SESSIONS_ACTIONS[action],
  );
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
  const [sessionId = ""] = words;
  if (action !== "list" && sessionId.trim() === "") {
    const needs = action === "import" ? "a file (or - for stdin)" : "a session id";
    throw new UsageError(
      `sessions ${action} needs ${needs}, not "${sessionId}" (usage: ${SESSIONS_ACTIONS[action].usage})`,
    );
  }
  switch (action) {
    case "list":
      return {
        kind: "sessions-list",
        json: values.json === true,
        ...(values.limit === undefined ? {} : { limit: numericFlag("limit", values.limit, 0) }),
      };
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
