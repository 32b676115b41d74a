/**
 * Reading sessions out of PostgreSQL: a log is its rows' lines, decoded by the file store's
 * reader (`parseEventLog`), so damage reads the same in both stores; listings come from the
 * metadata columns the writer keeps, never from the events.
 */

import { resolve } from "node:path";
import { parseEventLog } from "../event-log.js";
import type { SessionSummary, StoredLog } from "../session-store.js";
import { byNewestActivity } from "../store.js";
import type { Database } from "./database.js";
import { missingSession } from "./lease.js";

/** A log as read, with the sizes the writer needs. */
export interface ReadLog extends StoredLog {
  /** Bytes of the complete lines read. */
  validLength: number;
  /** The sequence number of a last row without its `\n` (a torn tail), if there is one. */
  tornSeq: number | undefined;
}

/**
 * The session's rows from `fromSeq` on, decoded. Sequence numbers are the rows' own.
 * @throws an Error with `code: "ENOENT"` when there is no such session; driver errors.
 */
export async function readRows(
  database: Database,
  sessionId: string,
  fromSeq: number,
): Promise<ReadLog> {
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
  const stored = rows.filter((row) => row.seq !== null);
  const seqOfLine = (line: number) => Number(stored[line - 1]?.seq ?? Number.NaN);
  const contents = parseEventLog(Buffer.from(stored.map((row) => row.data ?? "").join("")));
  const torn = contents.repaired.find((note) => note.reason === "torn_tail");
  const tornSeq = torn === undefined ? undefined : seqOfLine(torn.line);
  return {
    events: contents.events,
    seqs: contents.seqs.map(seqOfLine),
    repaired: contents.repaired.map((note) => ({ ...note, line: seqOfLine(note.line) })),
    nextSeq: tornSeq ?? Number(first.next_seq),
    validLength: contents.validLength,
    tornSeq,
  };
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
}

/**
 * Every session with at least one stored event, newest activity first (ties by id); with
 * `filter.cwd`, those started in that folder.
 */
export async function listRows(
  database: Database,
  filter: { cwd?: string | undefined },
): Promise<SessionSummary[]> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<SummaryRow>(
      `SELECT id, cwd, model, start_time, last_activity, updated_at, turns, event_count, size,
         title FROM sessions WHERE next_seq > 1`,
    ),
  );
  const wanted = filter.cwd === undefined ? undefined : resolve(filter.cwd);
  return rows
    .filter((row) => wanted === undefined || (row.cwd !== null && resolve(row.cwd) === wanted))
    .map((row) => toSummary(row, database.displayUrl))
    .sort(byNewestActivity);
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
    eventsPath: `${where} (session ${row.id})`,
  };
  return row.start_time === null ? { ...summary, problem: "no session.start event" } : summary;
}
