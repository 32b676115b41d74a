/**
 * The file store's listing metadata: `<session folder>/metadata.json`, what `turnloop sessions`
 * and `session/list` show of a session (start, title, name, counts, last activity) together with the
 * number of bytes of `events.jsonl` it describes. The writer stores it from the events it appends
 * (no reading) at its first commit, at commits outside a prompt (its end, close) and at a
 * checkpoint inside one that is 64 KiB past it (see `LISTING_TAIL_BYTES` and the comment above it
 * in `file-store.ts`); a lister trusts it while the log's size matches, scans
 * only the bytes past it when the log grew (a writer mid-turn, or killed), and scans the
 * whole log once when the file is missing, damaged or describes more bytes than the log has (an
 * old log, a cut torn tail), then stores the result.
 *
 * Scanning reads each line as `sessions show` does (event-log-reading.ts: damaged lines and
 * events not of the log's chain are skipped), so a listing counts what `show` shows. A scan of
 * the bytes past the metadata goes on from the last event it describes ({@link LogScan.lastId});
 * one that meets a parent it cannot judge there is done again over the whole log.
 */

import { readFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PromptBlock, SessionEvent, UserMessageData } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { EventLog, type KeepEvent, type OpenedEventLog } from "./event-log.js";
import { EventLogParser, LOG_START } from "./event-log-reading.js";
import { foldPrompt, isPromptState } from "./listed-prompt.js";
import { givenPrompt } from "./prompt-attachments.js";
import type { IdleLock } from "./session-lock.js";
import type { PromptStopsState } from "./session-model/prompt-stops.js";
import { createFile, writeAndClose } from "./small-file.js";

/** What a listing shows of one log, and how many of its bytes that covers. */
export interface LogScan {
  /** Bytes of `events.jsonl` described: up to the end of the last complete line scanned. */
  size: number;
  /** Events of the log's chain (what a read of the log gives). */
  eventCount: number;
  /**
   * Turns: `assistant.turn_start` events but the failed attempts sent again (an
   * `assistant.retry` naming the turn that just ended `failed`), the count `-p`'s summary and
   * `/usage` give (usage-totals.ts).
   */
  turns: number;
  /** The last turn that ended, when it ended `failed`: an `assistant.retry` may still name it. */
  failedTurn: string | null;
  start: { cwd: string; model: string; startTime: string } | null;
  /** The `newModel` of the last `session.model_change`: the model a resume uses, when set. */
  model: string | null;
  /**
   * The first `user.message` with source `user`, on one line (see {@link oneLine}); in a fork,
   * marked as one ({@link forkTitle}).
   */
  firstPrompt: string | null;
  /** The `forkedFrom` of `session.start`: the session this one is a fork of. */
  forkedFrom: string | null;
  /**
   * The `title` of the last `session.title_changed`: the name the session was given
   * (`session.name.set` / `setAuto`, a fork's name), as `session.name.get` answers it.
   */
  name: string | null;
  /**
   * Where the prompts stand: the session model's stop rule folded over the log (listed-prompt.ts),
   * which says whether the last prompt has an end; `null` before any event it reads.
   */
  prompt: PromptStopsState | null;
  /**
   * Timestamp of the latest event that was work in the session, never before its start
   * (`later`: a fork's copied events keep their earlier times): not a `session.resume` or
   * `session.shutdown`, which an editor's `session/load` or an app's `resumeSession` that only
   * reads the session also writes (so reading a session does not make it the one `--continue`
   * takes, a trial's finding).
   */
  lastTimestamp: string | null;
  /** The id of the last event: what the next line appended is chained to. */
  lastId: string | null;
}

/**
 * 7: `prompt` (6 had none: stored scans of 6 are made again once);
 * 6: `name` (5 had none: stored scans of 5 are made again once, which reads the name from the log);
 * 5: forks' titles marked (`forkTitle`), `lastTimestamp` never before `session.start`'s `startTime` or an earlier event's (4 took the
 * last event's: a fork's copied events made it earlier than its start); 4: `turns` without the failed attempts sent again (3 counted them: stored scans of 3 are made
 * again once); 3: `lastTimestamp` without opening and closing events (2 counted them: stored scans of 2 are
 * made again once); 2: counts of the log's chain, with `lastId` (1 counted lines that looked
 * like events).
 */
const METADATA_VERSION = 7;
const FIRST_PROMPT_LENGTH = 80;
/** Characters of a prompt looked at for its title. */
const PROMPT_SCAN_LIMIT = 65_536;
/** `<directory>/metadata.json`. */
export function metadataPath(directory: string): string {
  return join(directory, "metadata.json");
}

/** The scan of an empty log. */
export function emptyScan(): LogScan {
  return {
    size: 0,
    eventCount: 0,
    turns: 0,
    failedTurn: null,
    start: null,
    model: null,
    firstPrompt: null,
    forkedFrom: null,
    name: null,
    prompt: null,
    lastTimestamp: null,
    lastId: null,
  };
}

/**
 * Folds one appended event into `scan` (the writer's way: no reading back).
 * @param byteLength bytes of its line, `\n` included.
 */
export function scanEvent(scan: LogScan, event: SessionEvent, byteLength: number): void {
  scan.size += byteLength;
  scan.eventCount += 1;
  if (event.type !== "session.resume" && event.type !== "session.shutdown") {
    scan.lastTimestamp = later(scan.lastTimestamp, event.timestamp);
  }
  scan.lastId = event.id;
  scan.prompt = foldPrompt(scan.prompt, event);
  if (event.type === "assistant.turn_start") {
    scan.turns += 1;
  } else if (event.type === "assistant.turn_end") {
    scan.failedTurn = ["failed", "error"].includes(event.data.status) ? event.data.turnId : null;
  } else if (event.type === "assistant.retry" && event.data.turnId === scan.failedTurn) {
    scan.turns -= 1;
    scan.failedTurn = null;
  } else if (event.type === "session.start" && scan.start === null) {
    scan.start = startOf(event.data);
    const { forkedFrom } = event.data as { forkedFrom?: unknown };
    scan.forkedFrom = typeof forkedFrom === "string" ? forkedFrom : null;
    scan.lastTimestamp = later(scan.lastTimestamp, scan.start?.startTime ?? null);
  } else if (event.type === "user.message" && scan.firstPrompt === null) {
    scan.firstPrompt = forkTitle(scan.forkedFrom, promptOf(event.data));
  } else if (event.type === "session.model_change") {
    scan.model = event.data.newModel;
  } else if (event.type === "session.title_changed") {
    scan.name = event.data.title;
  }
}

/** {@link scanEvent} for events read whole (e.g. when the writer opens the log). */
export function scanEvents(events: readonly SessionEvent[], size: number): LogScan {
  const scan = emptyScan();
  for (const event of events) {
    scanEvent(scan, event, 0);
  }
  scan.size = size;
  return scan;
}

/**
 * Continues `scan` over `bytes`, the log's bytes from `scan.size` on (a line boundary), up to the
 * last complete line, reading each line as the log's readers do (event-log-reading.ts), its chain
 * going on from `scan.lastId`.
 * @returns the scan, or `undefined` when an event past `scan.size` names a parent before it other
 * than `scan.lastId` (or follows a damaged line there): only a scan of the whole log
 * ({@link scanLog}) can judge it. Never throws.
 */
export function scanBytes(scan: LogScan, bytes: Buffer): LogScan | undefined {
  const next = { ...scan };
  const start =
    scan.size === 0 ? LOG_START : { from: "after_event" as const, id: scan.lastId ?? undefined };
  const parser = new EventLogParser(
    1,
    (event) => {
      scanEvent(next, event, 0);
      return false;
    },
    start,
  );
  parser.push(bytes);
  const read = parser.end();
  next.size = scan.size + read.validLength;
  return read.undecided ? undefined : next;
}

/** The scan of a whole log's bytes (see {@link scanBytes}). Never throws. */
export function scanLog(bytes: Buffer): LogScan {
  return scanBytes(emptyScan(), bytes) ?? emptyScan();
}

/**
 * The stored metadata of the session in `directory`; `undefined` when missing or unusable. Read
 * synchronously: a listing reads a thousand of these small files, and a round trip through the
 * I/O threads per file costs more than the read itself.
 */
export function readMetadata(directory: string): LogScan | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(metadataPath(directory), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const { version, scan } = value as { version?: unknown; scan?: Partial<LogScan> };
  if (
    version !== METADATA_VERSION ||
    typeof scan !== "object" ||
    scan === null ||
    !isPromptState(scan.prompt)
  ) {
    return undefined;
  }
  const numbers = [scan.size, scan.eventCount, scan.turns];
  if (!numbers.every((number) => Number.isSafeInteger(number) && (number as number) >= 0)) {
    return undefined;
  }
  const start = scan.start === null ? null : startOf(scan.start);
  return {
    ...emptyScan(),
    ...scan,
    start,
    model: typeof scan.model === "string" ? scan.model : null,
    firstPrompt: typeof scan.firstPrompt === "string" ? scan.firstPrompt : null,
    forkedFrom: typeof scan.forkedFrom === "string" ? scan.forkedFrom : null,
    name: typeof scan.name === "string" ? scan.name : null,
    lastTimestamp: typeof scan.lastTimestamp === "string" ? scan.lastTimestamp : null,
    lastId: typeof scan.lastId === "string" ? scan.lastId : null,
    failedTurn: typeof scan.failedTurn === "string" ? scan.failedTurn : null,
  };
}

/**
 * Replaces the metadata of the session in `directory` (a new file renamed over the old one, so
 * a reader never sees half of it). Mode 0600, like the log: it holds the first prompt.
 */
export async function writeMetadata(directory: string, scan: LogScan): Promise<void> {
  const target = metadataPath(directory);
  const temporary = `${target}.${randomUUID().slice(0, 8)}.tmp`;
  const text = `${JSON.stringify({ version: METADATA_VERSION, scan })}\n`;
  try {
    // The create and the rename through the thread pool, the write and close on this thread
    // (small-file.ts: a server writes this file at the end of every prompt).
    writeAndClose(await createFile(temporary, "w", 0o600), text);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The later of two ISO-8601 times (one that does not parse loses), so that a session's last
 * activity is never before its start nor before an earlier event: a fork's copied events keep the
 * source's times, before the fork's `session.start` (fork.ts).
 */
function later(current: string | null, next: string | null): string | null {
  if (current === null || next === null) {
    return next ?? current;
  }
  const nextTime = Date.parse(next);
  return Number.isNaN(nextTime) || nextTime < Date.parse(current) ? current : next;
}

/**
 * A fork's title: `(fork of <first 8 characters of its source's id>) <prompt>`, so that a fork
 * and its source, which begin with the same prompt, are told apart in lists and in the Copilot
 * SDK's `session.list` `summary` (the Copilot wire describes no mark of a fork).
 */
function forkTitle(forkedFrom: string | null, prompt: string | null): string | null {
  return forkedFrom === null || prompt === null
    ? prompt
    : `(fork of ${forkedFrom.slice(0, 8)}) ${prompt}`;
}

function startOf(data: unknown): LogScan["start"] {
  const { cwd, model, startTime } = (data ?? {}) as Record<string, unknown>;
  // The reader checks the envelope only; a hand-edited start must not crash the listing.
  if (typeof cwd !== "string" || typeof model !== "string" || typeof startTime !== "string") {
    return null;
  }
  return { cwd, model, startTime };
}

function promptOf(data: unknown): string | null {
  const { source, content, contentBlocks } = (data ?? {}) as Record<string, unknown>;
  if (source !== "user" || typeof content !== "string") {
    return null;
  }
  // A hand-edited `contentBlocks` that is not a list of blocks is read as absent.
  const blocks =
    Array.isArray(contentBlocks) && contentBlocks.every(isBlock) ? contentBlocks : undefined;
  return promptTitle(
    { content, ...(blocks === undefined ? {} : { contentBlocks: blocks }) },
    FIRST_PROMPT_LENGTH,
  );
}

function isBlock(value: unknown): value is PromptBlock {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

/**
 * A session's title from its first prompt: the prompt as the user gave it, without the output of
 * the `!command`s put before it, the attachments turnloop appended to it or the resources a face
 * rendered into it (prompt-attachments.ts {@link givenPrompt}), as {@link oneLine} makes it.
 */
export function promptTitle(
  prompt: Pick<UserMessageData, "content" | "contentBlocks">,
  length: number,
): string {
  return oneLine(givenPrompt(prompt).text, length);
}

/**
 * `text` with whitespace runs collapsed to one space, cut to `length` code points with `…`. Reads
 * at most the first 65,536 characters, so its memory is bounded whatever the text's length.
 */
export function oneLine(text: string, length: number): string {
  // Only the start can show: a 50 MB prompt is not collapsed whole.
  const cut = text.length > PROMPT_SCAN_LIMIT;
  const head = cut ? text.slice(0, PROMPT_SCAN_LIMIT) : text;
  const codePoints = Array.from(head.replace(/\s+/g, " ").trim());
  if (codePoints.length <= length && !cut) {
    return codePoints.join("");
  }
  return `${codePoints.slice(0, length - 1).join("")}…`;
}

/**
 * What the file store's appender knows of the end of its log: enough to open it again from there
 * (file-store.ts) without scanning it again for the listing metadata.
 */
export interface LogTail {
  /** The listing metadata of the whole log. */
  scan: LogScan;
  /** The sequence number the next line gets. */
  nextSeq: number;
  /** The last line, as appended here: its byte offset and its event's id. */
  lastLine: { offset: number; id: string } | undefined;
  /** The metadata last stored by the appender that let the log go, while the log ends there. */
  stored?: LogScan | undefined;
  /** The lock as the appender that let the log go left it held idle (session-lock.ts). */
  idleLock?: IdleLock | undefined;
}

/**
 * Opens the log at `path` for appending. With `tail`, reads only from `tail`'s last line on, when
 * that line is still the event appended there (else the whole log): `events` then starts with
 * that event. `keep`: as `LeaseOptions.keep` (a whole log's `events` holds only those and the
 * last; the listing metadata is still scanned from every event).
 */
export async function openLog(
  path: string,
  tail: LogTail | undefined,
  keep: KeepEvent | undefined,
): Promise<{ opened: OpenedEventLog; state: LogTail }> {
  const last = tail?.lastLine;
  if (tail !== undefined && last !== undefined) {
    const from = { offset: last.offset, seq: tail.nextSeq - 1 };
    const opened = await EventLog.open(path, { create: false, from }).catch(() => undefined);
    if (opened?.seqs[0] === from.seq && opened.events[0]?.id === last.id && !opened.undecided) {
      const scan = { ...tail.scan };
      for (const event of opened.events.slice(1)) {
        scanEvent(scan, event, 0);
      }
      scan.size = opened.validLength;
      const [lastLine, stored] = opened.events.length === 1 ? [last, tail.stored] : [];
      return { opened, state: { scan, nextSeq: opened.nextSeq, lastLine, stored } };
    }
    await opened?.log.close();
  }
  const scan = emptyScan();
  const opened = await EventLog.open(path, {
    create: false,
    keep: (event, seq) => {
      scanEvent(scan, event, 0);
      return keep?.(event, seq) ?? true;
    },
  });
  scan.size = opened.validLength;
  return { opened, state: { scan, nextSeq: opened.nextSeq, lastLine: undefined } };
}
