/**
 * What `turnloop sessions import` stores (README, "Moving sessions between stores"). An imported
 * log is someone else's file: the "always" answers it records (`permission.completed` with scope
 * `session`, `session.grants_changed`), which a resume folds into the session's allow list
 * (session-grants.ts), must not let its tools run without a question here. When the log grants
 * anything, the import stores it followed by one `session.grants_changed` line that keeps its
 * denials and drops its allows, so that every face that resumes it (`-p --resume`, the
 * interactive session, ACP `session/load`, the SDK's `session.resume`), all folding the same log,
 * asks again until the user grants again. A log without allow grants is stored byte for byte.
 */

import type { RepairNote, SessionEvent } from "../events/events.js";
import { createEnvelope, decodeEventLine, parseEventLog, serializeEvent } from "./event-log.js";
import { conversationEvents } from "./rewind.js";
import { SessionGrants } from "./session-grants.js";

/** A log ready to store, and what the import says about it. */
export interface ImportedLog {
  /** The `sessionId` of the log's first readable `session.start`. */
  readonly sessionId: string;
  /** The folder the session's tools run in (`session.start`'s `cwd`), as the log gives it. */
  readonly cwd: string;
  /** The bytes to store: the file's, then the line setting its allow grants aside, if any. */
  readonly bytes: Buffer;
  /** The allow rules the log recorded that no longer apply (rule texts, e.g. `bash(git *)`). */
  readonly setAside: readonly string[];
  /**
   * The log's damaged lines (event-log-reading.ts: not JSON, not an event, or fields not of their
   * declared types), stored as they are and skipped by every reader of the session.
   */
  readonly damaged: readonly RepairNote[];
}

/**
 * The log `file` as `sessions import` stores it. A file whose last line has no `\n` is read as if
 * it had one, so that a grant in a torn last line, which the added line would complete, counts.
 * @throws Error when the file has no readable `session.start` (another export format is named
 * as such), or holds a second one (two logs joined: the error names both sessions).
 */
export function importedLog(file: Buffer): ImportedLog {
  const ended = file.at(-1) === 0x0a || file.length === 0;
  const { events, repaired } = parseEventLog(
    ended ? file : Buffer.concat([file, Buffer.from("\n")]),
  );
  const start = events.find((event) => event.type === "session.start");
  if (start?.type !== "session.start") {
    throw new Error(noStartMessage(file));
  }
  const second = repaired.find((note) => note.reason === "second_start");
  if (second !== undefined) {
    throw new Error(
      `the file holds two sessions: ${start.data.sessionId}, and ${startedSession(file, second)} from line ${second.line} on; import each log on its own`,
    );
  }
  const grants = new SessionGrants();
  for (const event of conversationEvents(events)) {
    grants.record(event);
  }
  const setAside = grants.allow.map((rule) => rule.text);
  const { sessionId, cwd } = start.data;
  const identity = { sessionId, cwd, setAside, damaged: repaired };
  if (setAside.length === 0) {
    return { ...identity, bytes: file };
  }
  const line = serializeEvent(setAsideEvent(grants, events.at(-1)?.id ?? null));
  return { ...identity, bytes: Buffer.concat([file, Buffer.from(ended ? line : `\n${line}`)]) };
}

/** What import takes, for a file that is no session log. */
const IMPORT_TAKES =
  "import takes a session's log, as `turnloop sessions export <id> --format jsonl` writes it";

/**
 * Why `file`, without a readable `session.start`, is not imported: another format of `sessions
 * export` (an HTML page, Markdown, the view's JSON with its `summary` and `turns`) named as such,
 * else a log without its start; either way, what import takes.
 */
function noStartMessage(file: Buffer): string {
  const head = file.subarray(0, 64).toString("utf8").trimStart();
  const format = /^<!doctype html|^<html/i.test(head)
    ? "html"
    : head.startsWith("# turnloop session")
      ? "markdown"
      : isViewJson(file)
        ? "json"
        : undefined;
  return format === undefined
    ? `the file has no readable session.start event: nothing to import (${IMPORT_TAKES})`
    : `the file is a \`sessions export --format ${format}\` export, for reading, not a session's log: nothing to import (${IMPORT_TAKES})`;
}

/** Whether `file` is one JSON object with a session view's `summary` and `turns` (export --format json). */
function isViewJson(file: Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(file.toString("utf8"));
    return (
      typeof parsed === "object" && parsed !== null && "summary" in parsed && "turns" in parsed
    );
  } catch {
    return false;
  }
}

/** The `sessionId` of the `session.start` at `note`'s line of `file`. */
function startedSession(file: Buffer, note: RepairNote): string {
  const result = decodeEventLine(file.subarray(note.offset, note.offset + note.length));
  return result.kind === "event" && result.event.type === "session.start"
    ? result.event.data.sessionId
    : "another session";
}

/** The `session.grants_changed` keeping `grants`' denials only, chained after `parentId`. */
function setAsideEvent(grants: SessionGrants, parentId: string | null): SessionEvent {
  const deny = grants.deny.map((rule) => rule.text);
  return createEnvelope({ type: "session.grants_changed", data: { allow: [], deny } }, parentId);
}

/**
 * What the import says on stderr after `imported <id> into <store>`: the session's folder, the
 * damaged lines it skips when read, and the grants set aside (README, "Moving sessions between
 * stores"); each line without `\n`.
 */
export function importNotes(log: ImportedLog, folderExists: boolean): string[] {
  const folder = folderExists
    ? `the session's tools run in ${log.cwd} when it is resumed`
    : `the session's folder ${log.cwd} does not exist here: its tools cannot run until it does`;
  const damaged = log.damaged.length;
  const notes = [folder];
  if (damaged > 0) {
    const lines = log.damaged.map((note) => note.line).join(", ");
    const what = damaged === 1 ? "damaged line" : "damaged lines";
    notes.push(`the log has ${damaged} ${what} (${lines}): stored as is, skipped when read`);
  }
  const count = log.setAside.length;
  if (count === 0) {
    return notes;
  }
  const grants = count === 1 ? "grant the log records" : "grants the log records";
  return [
    ...notes,
    `not applying the "always" ${grants} (${log.setAside.join(", ")}): the session asks ` +
      "again before running what they allowed",
  ];
}
