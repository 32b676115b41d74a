import type { Pool } from "pg";

// For the tests that hold the PostgreSQL `events` table locked while a turnloop process stops
// (test/server/signal-while-stopping.test.ts, test/acp/signal-while-closing.test.ts).

/** How many of the database's connections wait for a lock on `events` (the process's writes). */
export async function lockWaits(pool: Pool): Promise<number> {
  const waiting = await pool.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%events%'`,
  );
  return (waiting.rows[0] as { n: number }).n;
}

/**
 * Ends the backends that wait for a lock: the insert a killed process had sent would otherwise
 * still land once the lock goes (its backend would have ended on its own the next time it wrote
 * to the closed socket).
 */
export async function endLockWaiters(pool: Pool): Promise<void> {
  await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
}

/** The types of the events stored for `sessionId`, in order. */
export async function storedTypes(pool: Pool, sessionId: string): Promise<string[]> {
  const stored = await pool.query("SELECT type FROM events WHERE session_id = $1 ORDER BY seq", [
    sessionId,
  ]);
  return stored.rows.map((row: { type: string }) => row.type);
}
