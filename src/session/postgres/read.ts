/**
 * Reading sessions out of PostgreSQL: a log is its rows, each one event decoded on its own by the
 * file store's line decoder (`decodeEventLine`), so damage reads the same in both stores and a
 * damaged row never costs its neighbour; listings come from the metadata columns the writer
 * keeps, never from the events.
 */

import { resolve } from "node:path";
import { decodeEventLine } from "../event-log.js";
import { type ChainStart, LOG_START, LogChain } from "../event-log-reading.js";
import type { SessionSummary, StoredLog } from "../session-store.js";
import { byNewestActivity } from "../store.js";
import type { Database } from "./database.js";
import { missingSession } from "./database.js";
import { liveLeaseSql } from "./lease.js";
import { readText } from "./stored-text.js";

/** A log as read, with the sizes the writer needs. */
export interface ReadLog extends StoredLog {
  /** Bytes of the complete lines read. */
  validLength: number;
  /** The sequence number of a last row without its `\n` (a torn tail), if there is one. */
  tornSeq: number | undefined;
}

/**
 * The session's rows from `fromSeq` on, decoded. Each row is one event, read on its own
 * ({@link decodeRows}); sequence numbers are the rows' own. Past the first row, the row before
 * `fromSeq` is read too, and the chain goes on from its event (a follower reads from where it
 * left off, so that row is the last one it was given, or the last a caller read whole); rows
 * naming a parent before it, or following a damaged row, are judged by reading again from the
 * first row. That row is taken to be of the chain: were it itself a line a whole read skips (an
 * imported log's foreign line), an event chained to it would be kept here and skipped there.
 * @throws an Error with `code: "ENOENT"` when there is no such session; driver errors.
 */
export async function readRows(
  database: Database,
  sessionId: string,
  fromSeq: number,
): Promise<ReadLog> {
  const from = Math.max(1, fromSeq);
  const { nextSeq, rows } = await selectRows(database, sessionId, from === 1 ? 1 : from - 1);
  const [before] = rows;
  let start: ChainStart = LOG_START;
  if (from > 1) {
    const result = before?.seq === from - 1 ? decodeEventLine(rowBody(before)) : undefined;
    start = { from: "after_event", id: result?.kind === "event" ? result.event.id : undefined };
  }
  const after = from > 1 && before?.seq === from - 1 ? rows.slice(1) : rows;
  let decoded = decodeRows(after, start);
  if (decoded.undecided) {
    const whole = decodeRows((await selectRows(database, sessionId, 1)).rows, LOG_START);
    decoded = fromRow(whole, from);
  }
  return { ...decoded, nextSeq: decoded.tornSeq ?? nextSeq };
}

/** `read`'s events, notes and torn tail from row `fromSeq` on (its sizes as they are). */
function fromRow(read: DecodedRows, fromSeq: number): DecodedRows {
  const index = read.seqs.findIndex((seq) => seq >= fromSeq);
  const first = index === -1 ? read.seqs.length : index;
  return {
    ...read,
    events: read.events.slice(first),
    seqs: read.seqs.slice(first),
    repaired: read.repaired.filter((note) => note.line >= fromSeq),
  };
}

/**
 * The session's rows from `fromSeq` on, and its next sequence number.
 * @throws an Error with `code: "ENOENT"` when there is no such session; driver errors.
 */
async function selectRows(
  database: Database,
  sessionId: string,
  fromSeq: number,
): Promise<{ nextSeq: number; rows: EventRow[] }> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ next_seq: string; seq: string | null; data: string | null }>(
      `SELECT s.next_seq, e.seq, e.data FROM sessions AS s
       LEFT JOIN events AS e ON e.session_id = s.id AND e.seq >= $2
       WHERE s.id = $1 ORDER BY e.seq`,
      [sessionId, fromSeq],
    ),
  );
  const [first] = rows;
  if (first === undefined) {
    throw missingSession(sessionId);
  }
  const stored = rows.flatMap(({ seq, data }) =>
    seq === null ? [] : [{ seq: Number(seq), data: readText(data ?? "") }],
  );
  return { nextSeq: Number(first.next_seq), rows: stored };
}

/** A row's line without its `\n`. */
function rowBody({ data }: EventRow): Buffer {
  return Buffer.from(data.endsWith("\n") ? data.slice(0, -1) : data, "utf8");
}

/** What {@link decodeRows} read. */
export interface DecodedRows extends Omit<ReadLog, "nextSeq"> {
  /** The rows began past the first and hold a parent only a read from it can judge. */
  undecided: boolean;
}

/** One stored row: its sequence number and its `data`, the line the file store would write. */
export interface EventRow {
  seq: number;
  data: string;
}

/**
 * Decodes each row on its own, as one line of `events.jsonl` (without its `\n`, which a row
 * rewritten through `data::jsonb` no longer has): a valid row is an event whatever its neighbours
 * hold, and a damaged one is skipped and listed (`line`: its sequence number; `offset`: where it
 * starts in the export, {@link exportedLog}) without costing the next. A last row without its
 * `\n` that is no event is a torn tail (a log imported that way), cut when the session is opened.
 * An event not of the log's chain (event-log-reading.ts `LogChain`) is skipped and listed as the
 * file store's reader does; `start`: where `rows` begin in the log's chain.
 */
export function decodeRows(rows: readonly EventRow[], start: ChainStart = LOG_START): DecodedRows {
  const read: DecodedRows = {
    events: [],
    seqs: [],
    repaired: [],
    validLength: 0,
    tornSeq: undefined,
    undecided: false,
  };
  let offset = 0;
  const chain = new LogChain(start);
  for (const [index, row] of rows.entries()) {
    const { seq, data } = row;
    const body = rowBody(row);
    const result = decodeEventLine(body);
    const note = { line: seq, offset, length: body.length };
    const chainBreak = result.kind === "event" ? chain.admit(result.event) : undefined;
    if (chainBreak !== undefined) {
      read.repaired.push({ ...note, reason: chainBreak });
    } else if (result.kind === "event") {
      read.events.push(result.event);
      read.seqs.push(seq);
    } else if (result.kind === "damaged" && index === rows.length - 1 && !data.endsWith("\n")) {
      read.repaired.push({ ...note, reason: "torn_tail" });
      read.tornSeq = seq;
      break;
    } else if (result.kind === "damaged") {
      chain.damaged();
      read.repaired.push({ ...note, reason: result.reason });
    }
    offset += body.length + 1;
    read.validLength = offset;
  }
  read.undecided = chain.undecided;
  return read;
}

/**
 * The rows as the file store's `events.jsonl` would hold them: each row's line with its `\n`
 * (added when the row lacks it, except a torn last row, kept as is), and an event whose row
 * spans lines (`jsonb_pretty`) on one line; concatenating an imported log's rows gives its
 * bytes back.
 */
export function exportedLog(rows: readonly string[]): Buffer {
  const lines = rows.map((data, index) => {
    const body = data.endsWith("\n") ? data.slice(0, -1) : data;
    const result = decodeEventLine(Buffer.from(body, "utf8"));
    if (result.kind === "event" && body.includes("\n")) {
      return `${JSON.stringify(JSON.parse(body))}\n`;
    }
    const torn = index === rows.length - 1 && !data.endsWith("\n") && result.kind !== "event";
    return torn ? data : `${body}\n`;
  });
  return Buffer.from(lines.join(""), "utf8");
}

interface SummaryRow {
  id: string;
  cwd: string | null;
  model: string | null;
  start_time: string | null;
  last_activity: string | null;
  updated_at: Date;
  turns: number;
  event_count: number;
  size: string;
  title: string | null;
  name: string | null;
  /** The last prompt has no end and the lease is not live (lease.ts `liveLeaseSql`). */
  interrupted: boolean;
}

/**
 * Every session with at least one stored event, newest activity first (ties by id); with
 * `filter.cwd`, those started in that folder. `leaseMs`: this worker's lease, which judges
 * whether another's is live (lease.ts `liveLeaseSql`).
 */
export async function listRows(
  database: Database,
  filter: { cwd?: string | undefined },
  leaseMs: number,
): Promise<SessionSummary[]> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<SummaryRow>(`${summarySql(leaseMs)} WHERE next_seq > 1`),
  );
  const wanted = filter.cwd === undefined ? undefined : resolve(filter.cwd);
  return rows
    .map(readSummaryRow)
    .filter((row) => wanted === undefined || (row.cwd !== null && resolve(row.cwd) === wanted))
    .map((row) => toSummary(row, database.displayUrl))
    .sort(byNewestActivity);
}

/**
 * The session `sessionId` as {@link listRows} lists it, from its `sessions` row alone;
 * `undefined` when there is none, or none with an event.
 */
export async function summaryRow(
  database: Database,
  sessionId: string,
  leaseMs: number,
): Promise<SessionSummary | undefined> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<SummaryRow>(`${summarySql(leaseMs)} WHERE id = $1 AND next_seq > 1`, [sessionId]),
  );
  const [row] = rows;
  return row === undefined ? undefined : toSummary(readSummaryRow(row), database.displayUrl);
}

/** The `SELECT` of a listing's {@link SummaryRow}s, before its `WHERE`. */
function summarySql(leaseMs: number): string {
  return `SELECT id, cwd, model, start_time, last_activity, updated_at, turns, event_count, size,
         title, name, prompt_open AND NOT ${liveLeaseSql(leaseMs)} AS interrupted
       FROM sessions`;
}

/** `row` with its text columns read back (stored-text.ts). */
function readSummaryRow(row: SummaryRow): SummaryRow {
  return {
    ...row,
    cwd: readText(row.cwd),
    model: readText(row.model),
    start_time: readText(row.start_time),
    last_activity: readText(row.last_activity),
    title: readText(row.title),
    name: readText(row.name),
  };
}

function toSummary(row: SummaryRow, where: string): SessionSummary {
  const summary: SessionSummary = {
    sessionId: row.id,
    cwd: row.cwd,
    model: row.model,
    startTime: row.start_time,
    lastActivity: row.last_activity ?? row.updated_at.toISOString(),
    turns: row.turns,
    eventCount: row.event_count,
    size: Number(row.size),
    firstPrompt: row.title,
    ...(row.name === null ? {} : { name: row.name }),
    ...(row.interrupted ? { interrupted: true } : {}),
    eventsPath: `${where} (session ${row.id})`,
  };
  return row.start_time === null ? { ...summary, problem: "no session.start event" } : summary;
}
