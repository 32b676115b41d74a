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

function sessionsAction(rest: readonly string[], values: ParsedValues): StoreCommand {
  const [action, sessionId] = rest;
  if (action === "import" && sessionId !== undefined) {
    return { kind: "sessions-import", file: sessionId };
  }
  if (action === "export" && sessionId !== undefined && values.format === "jsonl") {
    const out = values.out === undefined ? {} : { out: values.out };
    return { kind: "sessions-export-log", sessionId, ...out };
  }
  if (action === undefined || action === "list") {
    return { kind: "sessions-list", json: values.json === true };
  }
  if ((action === "view" || action === "export") && sessionId !== undefined) {
    return sessionsViewCommand(action, sessionId, values);
  }
  if ((action === "show" || action === "delete") && sessionId !== undefined) {
    return action === "show"
      ? { kind: "sessions-show", sessionId }
      : { kind: "sessions-delete", sessionId };
  }
  throw new UsageError(
    "usage: turnloop sessions [list | show <id> | delete <id> | view <id> | export <id> --format F | import <file> | compact <id> [instructions]]",
  );
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
