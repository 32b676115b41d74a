/**
 * The PostgreSQL store's schema, as versioned migrations run at start (issue 22). Each migration
 * runs once, in order, inside a transaction holding an advisory lock, so workers starting together
 * never apply one twice; `schema_migrations` records which ran. A start that finds the schema
 * already at this build's version reads that in one statement and takes no lock (see {@link
 * migrate}).
 *
 * Tables:
 * - `sessions`: one row per session: its writer lease (`owner_id` the worker's id, `owner` who it
 *   is as JSON `{pid, hostname, command, acquiredAt}`, `epoch` raised by every claim,
 *   `lease_until`), `next_seq`, and the listing metadata the writer keeps at each commit (`name`
 *   since version 3, `prompt_open` since 4).
 * - `events`: one row per line of the session's log; `data` is exactly the line the file store
 *   writes in `events.jsonl`, its `\n` included (query it with `data::jsonb`), `seq` its line
 *   number, `epoch` the lease under which it was written.
 * Every string is stored and read through stored-text.ts (U+0000, which no `text` or `jsonb` value
 * holds, escaped reversibly).
 * - `inbox`: prompts, permission answers and aborts sent to a session's owner by another worker;
 *   a row is deleted when its owner takes it, when its sender withdraws it, or unread once
 *   expired (inbox.ts); `epoch` is the lease it was sent to (rows of version 1 have none).
 *   `taken_at` is no longer set.
 */

import type { PoolClient } from "pg";

/** The migrations, oldest first; version `i + 1` is `MIGRATIONS[i]`. Never edit one that shipped. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     id text PRIMARY KEY,
     status text NOT NULL DEFAULT 'open',
     owner_id text,
     owner jsonb,
     epoch bigint NOT NULL DEFAULT 0,
     lease_until timestamptz,
     next_seq bigint NOT NULL DEFAULT 1,
     cwd text,
     model text,
     start_time text,
     title text,
     turns integer NOT NULL DEFAULT 0,
     event_count integer NOT NULL DEFAULT 0,
     size bigint NOT NULL DEFAULT 0,
     last_activity text,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX sessions_owner ON sessions (owner_id) WHERE owner_id IS NOT NULL;
   CREATE TABLE events (
     session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq bigint NOT NULL,
     epoch bigint NOT NULL,
     type text NOT NULL,
     ts timestamptz,
     data text NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE inbox (
     id bigserial PRIMARY KEY,
     session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     kind text NOT NULL,
     payload jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     taken_at timestamptz
   );
   CREATE INDEX inbox_waiting ON inbox (session_id, id) WHERE taken_at IS NULL;`,
  // The lease a message was sent to: only that owner takes it (inbox.ts).
  "ALTER TABLE inbox ADD COLUMN epoch bigint;",
  // The name a session was given last (its last `session.title_changed`), for listings; filled
  // from the events stored before (a row whose JSON holds `\u0000`, which jsonb refuses, left
  // out: its name is stored at its writer's next commit). The title is read as stored
  // (stored-text.ts), as the column keeps it.
  `ALTER TABLE sessions ADD COLUMN name text;
   UPDATE sessions SET name = named.title
   FROM (
     SELECT DISTINCT ON (session_id) session_id, data::jsonb -> 'data' ->> 'title' AS title
     FROM events
     WHERE type = 'session.title_changed' AND data NOT LIKE '%\\\\u0000%'
     ORDER BY session_id, seq DESC
   ) AS named
   WHERE sessions.id = named.session_id;`,
  // Whether the last prompt has no end in the log (listed-prompt.ts), for listings: with no live
  // lease, its process ended mid-prompt. Sessions stored before say so from their next commit.
  "ALTER TABLE sessions ADD COLUMN prompt_open boolean NOT NULL DEFAULT false;",
];

/** Key of the advisory lock migrations hold (any fixed number; "turnloop" in ASCII, cut). */
export const MIGRATION_LOCK = 7_402_653_327;

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database's schema up to {@link SCHEMA_VERSION}. Every start first reads the recorded
 * version in one statement, outside any transaction: when it is this build's, nothing else is
 * sent (a migration's statements and its `schema_migrations` row commit together, so that version
 * means every migration is there). Otherwise (no table yet, an older or newer schema, or that
 * read failed) the migrations run under {@link MIGRATION_LOCK}, which reports a newer schema and
 * the driver's errors.
 * @throws Error when the database has a newer schema than this build (a newer turnloop wrote
 * it); the driver's errors (permissions, connection).
 */
export async function migrate(client: PoolClient): Promise<void> {
  const recorded = await client
    .query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations")
    .then(
      ({ rows }) => rows[0]?.version,
      () => undefined,
    );
  if (recorded === SCHEMA_VERSION) {
    return;
  }
  await migrateLocked(client);
}

/** Runs the migrations {@link migrate} found missing, inside a transaction holding the lock. */
async function migrateLocked(client: PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM schema_migrations",
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `the database has schema version ${current}, newer than this turnloop's ${SCHEMA_VERSION}; upgrade turnloop`,
      );
    }
    for (const [index, migration] of MIGRATIONS.entries()) {
      if (index + 1 > current) {
        await client.query(migration);
        await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [index + 1]);
      }
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
