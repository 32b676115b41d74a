/**
 * The file store's listing and deletion over `$TURNLOOP_HOME/session-state`.
 *
 * Listing never reads whole logs: each session's `metadata.json` (session-metadata.ts) is read
 * and checked against the size of its `events.jsonl`; only bytes past what it describes are
 * scanned (the whole log again when they hold an event chained to one before them that the
 * metadata does not name: session-metadata.ts), and a log without usable metadata is scanned
 * once, then described. A folder left
 * without a log (a process killed between taking the lock and writing `session.start`) is
 * removed once its lock's owner is gone.
 */

import { statSync } from "node:fs";
import { open, readdir, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { errorCode, errorMessage, isMissingFileError } from "../events/errors.js";
import { promptOpen } from "./listed-prompt.js";
import { eventsPath, isValidSessionId, sessionDirectory, sessionsRoot } from "./paths.js";
import { SessionLock, SessionLockedError } from "./session-lock.js";
import {
  emptyScan,
  type LogScan,
  readMetadata,
  scanBytes,
  scanLog,
  writeMetadata,
} from "./session-metadata.js";
import type { SessionSummary } from "./session-store.js";

/**
 * Sessions summarized at once. Current metadata is read synchronously; this overlaps the reads of
 * logs whose metadata is missing or behind, and bounds memory to that many of them.
 */
const LISTING_CONCURRENCY = 16;
/** How old a folder without a log must be before it is taken for debris (its creator is slow). */
const DEBRIS_GRACE_MS = 5_000;

/**
 * Every session with at least one line in its `events.jsonl`, newest `lastActivity` first (ties
 * by id). Folders whose name is not a valid session id are not sessions and are skipped; a
 * missing `session-state` folder gives `[]`. Damaged or unreadable logs are listed with `problem` set, never thrown.
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
  let next = 0;
  const worker = async () => {
    for (
      let sessionId = sessionIds[next++];
      sessionId !== undefined;
      sessionId = sessionIds[next++]
    ) {
      const summary = await summarizeSession(home, sessionId);
      if (summary !== undefined) {
        summaries.push(summary);
      }
    }
  };
  await Promise.all(Array.from({ length: LISTING_CONCURRENCY }, worker));
  const wanted = filter.cwd === undefined ? undefined : resolve(filter.cwd);
  return summaries
    .filter(
      (summary) =>
        wanted === undefined || (summary.cwd !== null && resolve(summary.cwd) === wanted),
    )
    .sort(byNewestActivity);
}

/**
 * Deletes the session's folder with everything in it, unless a live process has it open for
 * writing (see session-lock.ts): a log is never pulled from under its writer.
 * @returns `true` when it was deleted, `false` when there was no such session.
 * @throws InvalidSessionIdError for an unsafe id (e.g. `../../etc`); SessionLockedError when the
 * session is open (this process included: close it first); I/O errors as is.
 */
export async function deleteSession(home: string, sessionId: string): Promise<boolean> {
  const directory = sessionDirectory(home, sessionId);
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

/**
 * The session `sessionId` of the TURNLOOP_HOME folder `home` as {@link listSessions} lists it,
 * from its `metadata.json` (and the log bytes past it); `undefined` for an id that is no valid
 * session id or a folder holding no log.
 */
export async function summarizeSession(
  home: string,
  sessionId: string,
): Promise<SessionSummary | undefined> {
  if (!isValidSessionId(sessionId)) {
    return undefined;
  }
  const directory = sessionDirectory(home, sessionId);
  const path = eventsPath(home, sessionId);
  const empty = { sessionId, cwd: null, model: null, startTime: null, eventsPath: path };
  let scan: LogScan;
  let size: number;
  try {
    ({ scan, size } = await currentScan(directory, path));
  } catch (error) {
    // No events.jsonl, or a stray file named like a session: not a session.
    if (isMissingFileError(error)) {
      await removeDebris(directory);
      return undefined;
    }
    const lastActivity = await modifiedTime(directory);
    return {
      ...empty,
      lastActivity,
      turns: 0,
      eventCount: 0,
      size: 0,
      firstPrompt: null,
      problem: `cannot read events.jsonl: ${errorMessage(error)}`,
    };
  }
  if (scan.size === 0) {
    // No event yet: a session being created, or what a kill during creation left.
    await removeDebris(directory);
    return undefined;
  }
  const summary: SessionSummary = {
    ...empty,
    lastActivity: scan.lastTimestamp ?? (await modifiedTime(path)),
    turns: scan.turns,
    eventCount: scan.eventCount,
    size: scan.size,
    firstPrompt: scan.firstPrompt,
    ...(scan.name === null ? {} : { name: scan.name }),
    ...((await interrupted(directory, path, scan, size)) ? { interrupted: true } : {}),
  };
  return scan.start === null
    ? { ...summary, problem: "events.jsonl has no readable session.start" }
    : { ...summary, ...scan.start, model: scan.model ?? scan.start.model };
}

/**
 * Whether the log at `path`, `size` bytes long when `scan` of it was made, leaves its last prompt
 * without an end while no live process holds the session: its process ended mid-prompt. Only a
 * session whose prompt is open costs a read of its lock. The log has not grown since `size` once
 * no holder is seen: a writer that ended the prompt and let the session go meanwhile is not taken
 * for one that died. Reads only (the next open records the end: open-work.ts). Never throws.
 */
async function interrupted(
  directory: string,
  path: string,
  scan: LogScan,
  size: number,
): Promise<boolean> {
  if (!promptOpen(scan.prompt)) {
    return false;
  }
  try {
    return (await SessionLock.holder(directory)) === undefined && statSync(path).size === size;
  } catch {
    return false;
  }
}

/**
 * The metadata of the log at `path`, brought up to date: stored metadata as is when the log's
 * complete lines are exactly what it describes, else continued over the bytes past it, else (none
 * stored, or it describes more than the log has) a scan of the whole log. A changed result is
 * stored for the next listing (a failure to store it only costs that listing a scan).
 * @returns the scan, and the log's size in bytes when it was read (past `scan.size` by a torn tail).
 * @throws the log's I/O errors (`ENOENT` when there is none).
 */
async function currentScan(
  directory: string,
  path: string,
): Promise<{ scan: LogScan; size: number }> {
  // Synchronous, as readMetadata: cheaper than a trip through the I/O threads for each session.
  const { size } = statSync(path);
  const stored = readMetadata(directory);
  if (stored !== undefined && stored.size === size) {
    return { scan: stored, size };
  }
  const base = stored !== undefined && stored.size < size ? stored : emptyScan();
  // The bytes past the metadata; the whole log when they hold an event only it can judge.
  const scan =
    scanBytes(base, await readBytes(path, base.size, size)) ??
    scanLog(await readBytes(path, 0, size));
  if (scan.size > 0 && (scan.size !== base.size || stored === undefined)) {
    await writeMetadata(directory, scan).catch(() => undefined);
  }
  return { scan, size };
}

/** The bytes of the file at `path` from `start` to `end`. @throws its I/O errors. */
async function readBytes(path: string, start: number, end: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const bytes = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, start);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A lock file being replaced by an earlier version (`lock.<pid>.new`; lock-file.ts now writes the
 * new contents into `lock.break`, which is already debris).
 */
const REPLACED_LOCK = /^lock\.\d+\.new$/;

/**
 * Removes `directory` when it holds nothing but a lock whose owner is gone (and what a kill while
 * replacing it left: `lock.break`, or an earlier version's `lock.<pid>.new`) and an empty log (or
 * less), and is older than {@link DEBRIS_GRACE_MS}: what a kill between creating a new session's
 * folder and writing its first event leaves behind. Never throws.
 */
async function removeDebris(directory: string): Promise<void> {
  try {
    const entries = await readdir(directory);
    const debris = ["lock", "lock.break", "events.jsonl", "metadata.json"];
    if (
      !entries.every((entry) => debris.includes(entry) || REPLACED_LOCK.test(entry)) ||
      Date.now() - (await stat(directory)).mtimeMs < DEBRIS_GRACE_MS ||
      (await SessionLock.holder(directory)) !== undefined
    ) {
      return;
    }
    await rm(directory, { recursive: true });
  } catch {
    // Not a folder, already gone, or not ours to remove: leave it.
  }
}

async function modifiedTime(path: string): Promise<string> {
  try {
    return (await stat(path)).mtime.toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}

/** Sort order of listings: newest `lastActivity` first (unparsable ones last), ties by id. */
export function byNewestActivity(left: SessionSummary, right: SessionSummary): number {
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
