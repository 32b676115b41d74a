/**
 * The sessions under `$TURNLOOP_HOME/session-state`: list, find the newest in a folder, delete.
 *
 * Listing reads each `events.jsonl` once as bytes and looks at line prefixes (every line we write
 * starts with `{"type":"<type>"`, see `serializeEvent`): `assistant.turn_start` lines are counted
 * without parsing, and only `session.start`, the first user prompts and the last line are parsed.
 */

import { readdir, readFile, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { errorCode, errorMessage, isMissingFileError } from "../events/errors.js";
import type { SessionEventOf } from "../events/events.js";
import { decodeEventLine } from "./event-log.js";
import {
  eventsPath,
  isValidSessionId,
  sessionDirectory,
  sessionsRoot,
  validateSessionId,
} from "./paths.js";
import { SessionLock, SessionLockedError } from "./session-lock.js";

/** One line of `turnloop sessions` / `session/list`. */
export interface SessionSummary {
  sessionId: string;
  /** From `session.start`; `null` when the log has no readable `session.start` (see `problem`). */
  cwd: string | null;
  model: string | null;
  /** ISO-8601, from `session.start`. */
  startTime: string | null;
  /** ISO-8601: timestamp of the last valid event, else the file's (or folder's) mtime. */
  lastActivity: string;
  /** Number of model requests: complete `assistant.turn_start` lines. */
  turns: number;
  /** The first `user.message` with source `user`, on one line, at most 80 characters. */
  firstPrompt: string | null;
  eventsPath: string;
  /**
   * Set when the log cannot be read or has no `session.start`. Such sessions are still listed
   * (with what is known) so that they can be inspected and deleted; resuming them will fail.
   */
  problem?: string;
}

const FIRST_PROMPT_LENGTH = 80;
/** Files read at once while listing: enough to overlap I/O, few enough to bound memory. */
const LISTING_CONCURRENCY = 8;
const NEWLINE = 0x0a;

const TURN_START_PREFIX = Buffer.from('{"type":"assistant.turn_start"');
const SESSION_START_PREFIX = Buffer.from('{"type":"session.start"');
const USER_MESSAGE_PREFIX = Buffer.from('{"type":"user.message"');

/**
 * Every session with an `events.jsonl`, newest `lastActivity` first (ties by id). Folders whose
 * name is not a valid session id or that hold no `events.jsonl` are not sessions and are skipped;
 * a missing `session-state` folder gives `[]`. Damaged or unreadable logs are listed with
 * `problem` set, never thrown. With `filter.cwd`, only the sessions whose `session.start` cwd is
 * that folder (both resolved to absolute paths).
 * @throws only when `session-state` exists but cannot be listed (e.g. `EACCES`).
 */
export async function listSessions(
  home: string,
  filter: { cwd?: string | undefined } = {},
): Promise<SessionSummary[]> {
  let entries: string[];
  try {
    entries = await readdir(sessionsRoot(home));
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return [];
    }
    throw error;
  }
  const sessionIds = entries.filter(isValidSessionId);
  const summaries: SessionSummary[] = [];
  for (let start = 0; start < sessionIds.length; start += LISTING_CONCURRENCY) {
    const batch = sessionIds.slice(start, start + LISTING_CONCURRENCY);
    const results = await Promise.all(batch.map((sessionId) => summarizeSession(home, sessionId)));
    for (const summary of results) {
      if (summary !== undefined) {
        summaries.push(summary);
      }
    }
  }
  const wanted = filter.cwd === undefined ? undefined : resolve(filter.cwd);
  return summaries
    .filter(
      (summary) =>
        wanted === undefined || (summary.cwd !== null && resolve(summary.cwd) === wanted),
    )
    .sort(byNewestActivity);
}

/**
 * The session with the newest `lastActivity` whose `session.start` cwd is `cwd` (both resolved to
 * absolute paths), for `--continue`; `undefined` when there is none.
 * @throws as {@link listSessions}.
 */
export async function newestSessionInCwd(
  home: string,
  cwd: string,
): Promise<SessionSummary | undefined> {
  const [newest] = await listSessions(home, { cwd });
  return newest;
}

/**
 * The full id of the session `idOrPrefix` names: the id itself when such a session exists, else
 * the one session whose id starts with it (as `git` resolves short hashes).
 * @returns the id, or an error message (no such session / ambiguous prefix).
 */
export async function resolveSessionId(
  home: string,
  idOrPrefix: string,
): Promise<{ ok: true; sessionId: string } | { ok: false; message: string }> {
  const sessions = await listSessions(home);
  if (sessions.some((session) => session.sessionId === idOrPrefix)) {
    return { ok: true, sessionId: idOrPrefix };
  }
  const matches = sessions.filter((session) => session.sessionId.startsWith(idOrPrefix));
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) {
    return { ok: true, sessionId: only.sessionId };
  }
  return matches.length === 0
    ? { ok: false, message: `no session ${idOrPrefix} in ${home}` }
    : {
        ok: false,
        message: `${idOrPrefix} matches ${matches.length} sessions (${matches
          .slice(0, 3)
          .map((session) => session.sessionId)
          .join(", ")}${matches.length > 3 ? ", …" : ""}); give more of the id`,
      };
}

/**
 * Deletes the session's folder with everything in it, unless a live process has it open for
 * writing (see session-lock.ts): a log is never pulled from under its writer.
 * @returns `true` when it was deleted, `false` when there was no such session.
 * @throws InvalidSessionIdError for an unsafe id (e.g. `../../etc`); SessionLockedError when the
 * session is open (this process included: close it first); I/O errors as is.
 */
export async function deleteSession(home: string, sessionId: string): Promise<boolean> {
  const directory = sessionDirectory(home, validateSessionId(sessionId));
  const holder = await SessionLock.holder(directory);
  if (holder !== undefined) {
    const owner = holder === "unreadable" ? undefined : holder;
    throw new SessionLockedError(sessionId, owner, SessionLock.pathIn(directory));
  }
  try {
    await stat(directory);
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return false;
    }
    throw error;
  }
  await rm(directory, { recursive: true });
  return true;
}

async function summarizeSession(
  home: string,
  sessionId: string,
): Promise<SessionSummary | undefined> {
  const path = eventsPath(home, sessionId);
  const empty = { sessionId, cwd: null, model: null, startTime: null, turns: 0, firstPrompt: null };
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    // No events.jsonl, or a stray file named like a session: not a session.
    if (isMissingFileError(error)) {
      return undefined;
    }
    const lastActivity = await modifiedTime(sessionDirectory(home, sessionId));
    return { ...empty, lastActivity, eventsPath: path, problem: describeReadError(error) };
  }
  const scan = scanLog(bytes);
  const lastActivity = scan.lastTimestamp ?? (await modifiedTime(path));
  const summary: SessionSummary = {
    ...empty,
    lastActivity,
    turns: scan.turns,
    firstPrompt: scan.firstPrompt ?? null,
    eventsPath: path,
  };
  if (scan.start === undefined) {
    return { ...summary, problem: "events.jsonl has no readable session.start" };
  }
  const { cwd, model, startTime } = scan.start.data;
  return { ...summary, cwd, model, startTime };
}

interface LogScan {
  start: SessionEventOf<"session.start"> | undefined;
  firstPrompt: string | undefined;
  turns: number;
  lastTimestamp: string | undefined;
}

/** One pass over the complete lines; parses only the lines a summary needs. */
function scanLog(bytes: Buffer): LogScan {
  const validLength = bytes.lastIndexOf(NEWLINE) + 1;
  const scan: LogScan = {
    start: undefined,
    firstPrompt: undefined,
    turns: 0,
    lastTimestamp: undefined,
  };
  let offset = 0;
  while (offset < validLength) {
    const end = bytes.indexOf(NEWLINE, offset);
    if (hasPrefix(bytes, offset, end, TURN_START_PREFIX)) {
      scan.turns += 1;
    } else if (scan.start === undefined && hasPrefix(bytes, offset, end, SESSION_START_PREFIX)) {
      const result = decodeEventLine(bytes.subarray(offset, end));
      if (result.kind === "event" && result.event.type === "session.start") {
        const { cwd, model, startTime } = result.event.data;
        // The reader checks the envelope only; a hand-edited start must not crash the listing.
        if ([cwd, model, startTime].every((field) => typeof field === "string")) {
          scan.start = result.event;
        }
      }
    } else if (
      scan.firstPrompt === undefined &&
      hasPrefix(bytes, offset, end, USER_MESSAGE_PREFIX)
    ) {
      const result = decodeEventLine(bytes.subarray(offset, end));
      if (result.kind === "event" && result.event.type === "user.message") {
        const { source, content } = result.event.data;
        if (source === "user" && typeof content === "string") {
          scan.firstPrompt = oneLine(content, FIRST_PROMPT_LENGTH);
        }
      }
    }
    offset = end + 1;
  }
  scan.lastTimestamp = lastTimestamp(bytes, validLength);
  return scan;
}

/** Timestamp of the last line that decodes as an event, walking back from `validLength`. */
function lastTimestamp(bytes: Buffer, validLength: number): string | undefined {
  let end = validLength - 1;
  while (end >= 0) {
    const start = end === 0 ? 0 : bytes.lastIndexOf(NEWLINE, end - 1) + 1;
    const result = decodeEventLine(bytes.subarray(start, end));
    if (result.kind === "event") {
      return result.event.timestamp;
    }
    end = start - 1;
  }
  return undefined;
}

function hasPrefix(bytes: Buffer, start: number, end: number, prefix: Buffer): boolean {
  return (
    end - start >= prefix.length &&
    bytes.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0
  );
}

/** `text` with whitespace runs collapsed to one space, cut to `length` code points with `…`. */
function oneLine(text: string, length: number): string {
  const codePoints = Array.from(text.replace(/\s+/g, " ").trim());
  if (codePoints.length <= length) {
    return codePoints.join("");
  }
  return `${codePoints.slice(0, length - 1).join("")}…`;
}

async function modifiedTime(path: string): Promise<string> {
  try {
    return (await stat(path)).mtime.toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}

function byNewestActivity(left: SessionSummary, right: SessionSummary): number {
  const difference = timeOf(right.lastActivity) - timeOf(left.lastActivity);
  if (difference !== 0) {
    return difference;
  }
  return left.sessionId < right.sessionId ? -1 : left.sessionId > right.sessionId ? 1 : 0;
}

function timeOf(timestamp: string): number {
  const time = Date.parse(timestamp);
  return Number.isNaN(time) ? 0 : time;
}

function describeReadError(error: unknown): string {
  const detail = errorMessage(error);
  return `cannot read events.jsonl: ${detail}`;
}
