/**
 * A session's log in and out of PostgreSQL byte for byte (`turnloop sessions export --format
 * jsonl` and `sessions import`): one row per line, the line's `\n` kept in `data`, a last piece
 * without one (a torn tail) a row of its own, so concatenating the rows gives the bytes back; a
 * row rewritten by hand is exported as one line of its own all the same.
 */

import { decodeEventLine } from "../event-log.js";
import { promptOpen } from "../listed-prompt.js";
import { scanLog } from "../session-metadata.js";
import { storableTimestamp, storedMetadata } from "./appender.js";
import type { Database } from "./database.js";
import { missingSession } from "./database.js";
import { exportedLog } from "./read.js";
import { readText, storedText } from "./stored-text.js";

/**
 * The session's rows' lines, in order, one line per row (read.ts {@link exportedLog}).
 * @throws an Error with `code: "ENOENT"` when there is no such session.
 */
export async function exportRows(database: Database, sessionId: string): Promise<Buffer> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ data: string | null }>(
      `SELECT e.data FROM sessions AS s LEFT JOIN events AS e ON e.session_id = s.id
       WHERE s.id = $1 ORDER BY e.seq`,
      [sessionId],
    ),
  );
  if (rows.length === 0) {
    throw missingSession(sessionId);
  }
  return exportedLog(rows.flatMap((row) => (row.data === null ? [] : [readText(row.data)])));
}

/**
 * Stores `log` as the new session `sessionId`, one row per line, with its listing metadata; no
 * one holds its lease afterwards.
 * A line holding U+0000 (a damaged one) is stored through stored-text.ts and read back whole.
 * @throws Error when a session with that id exists, or the bytes are not UTF-8 (a column of
 * type `text` cannot hold them).
 */
export async function importRows(database: Database, sessionId: string, log: Buffer) {
  const text = log.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(log)) {
    throw new Error(`the log of ${sessionId} is not UTF-8; the PostgreSQL store keeps text only`);
  }
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const decoded = lines.map((line) => decodeEventLine(Buffer.from(line.replace(/\n$/, ""))));
  const scan = scanLog(log);
  const stored = await database.transaction(async (client) => {
    const { rowCount } = await client.query(
      `INSERT INTO sessions (id, status, next_seq, cwd, model, start_time, title, name,
         last_activity, turns, event_count, size, prompt_open)
       VALUES ($1, 'idle', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (id) DO NOTHING`,
      [
        sessionId,
        lines.length + 1,
        ...storedMetadata(scan),
        scan.turns,
        scan.eventCount,
        log.length,
        promptOpen(scan.prompt),
      ],
    );
    if (rowCount === 0) {
      return false;
    }
    await client.query(
      `INSERT INTO events (session_id, seq, epoch, type, ts, data)
       SELECT $1, row.seq, 0, row.type, row.ts, row.data
       FROM unnest($2::bigint[], $3::text[], $4::timestamptz[], $5::text[]) AS row(seq, type, ts, data)`,
      [
        sessionId,
        lines.map((_, index) => index + 1),
        decoded.map((result) =>
          storedText(result.kind === "event" ? result.event.type : result.kind),
        ),
        decoded.map((result) =>
          result.kind === "event" ? storableTimestamp(result.event.timestamp) : null,
        ),
        lines.map(storedText),
      ],
    );
    return true;
  });
  if (!stored) {
    throw new Error(`a session ${sessionId} already exists in ${database.displayUrl}`);
  }
}
