import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionHost } from "../../src/session/host.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { MIGRATION_LOCK, SCHEMA_VERSION } from "../../src/session/postgres/schema.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { defaultFaceOptions } from "../support/face-options.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { buildEvents, makeTemporaryDirectory, sessionStart } from "./support.js";

/**
 * Issue 22, the PostgreSQL store's connections: versioned migrations run at start (each once,
 * even by workers starting together), and the heartbeat renews leases on a connection of its own,
 * so a worker whose query pool is busy keeps its leases; a server's host closes them all as it
 * stops, the heartbeat an idle server keeps to say when the database is down too.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  cleanups.push(() => created.drop());
  return created;
}

async function worker(
  url: string,
  options: { leaseMs?: number; heartbeatMs?: number } = {},
): Promise<PostgresSessionStore> {
  const store = new PostgresSessionStore({ url, home: await makeTemporaryDirectory(), ...options });
  cleanups.push(() => store.close());
  return store;
}

async function versions(tested: TestDatabase): Promise<number[]> {
  const { rows } = await tested.pool.query<{ version: number }>(
    "SELECT version FROM schema_migrations ORDER BY version",
  );
  return rows.map((row) => row.version);
}

const EVERY_VERSION = Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1);

describe.skipIf(postgresUnavailable !== undefined)("the PostgreSQL store's connections", () => {
  it("runs each versioned migration once, brings an older schema up to date and refuses a newer one", async () => {
    const tested = await database();
    const [first, second] = [await worker(tested.url), await worker(tested.url)];
    // Two workers starting together on an empty database.
    expect(await Promise.all([first.list(), second.list()])).toEqual([[], []]);
    expect(await versions(tested)).toEqual(EVERY_VERSION);

    // A database left at version 1 by an older turnloop: version 2 added `inbox.epoch`, 3
    // `sessions.name`, 4 `sessions.prompt_open`.
    await tested.pool.query("DELETE FROM schema_migrations WHERE version > 1");
    await tested.pool.query("ALTER TABLE inbox DROP COLUMN epoch");
    await tested.pool.query("ALTER TABLE sessions DROP COLUMN name, DROP COLUMN prompt_open");
    expect(await (await worker(tested.url)).list()).toEqual([]);
    expect(await versions(tested)).toEqual(EVERY_VERSION);
    const { rows } = await tested.pool.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'inbox' AND column_name = 'epoch'",
    );
    expect(rows).toEqual([{ column_name: "epoch" }]);

    // A database a newer turnloop migrated.
    await tested.pool.query("INSERT INTO schema_migrations (version) VALUES ($1)", [
      SCHEMA_VERSION + 1,
    ]);
    await expect((await worker(tested.url)).list()).rejects.toThrow(
      `the database has schema version ${SCHEMA_VERSION + 1}, newer than this turnloop's ${SCHEMA_VERSION}; upgrade turnloop`,
    );
  });

  it("names the sessions of a database left at version 2 from their stored events", async () => {
    const tested = await database();
    const store = await worker(tested.url);
    const stored = async (sessionId: string, titles: string[]) => {
      const appender = await store.create(sessionId);
      const inputs = titles.map((title) => ({ type: "session.title_changed", data: { title } }));
      for (const event of buildEvents([sessionStart(sessionId), ...(inputs as never[])])) {
        appender.append(event);
      }
      await appender.close();
    };
    // U+FFFE is stored escaped (stored-text.ts): the name is read back as given.
    await stored("renamed", ["first", "second \uFFFE"]);
    await stored("unnamed", []);
    // As version 2 left it: no `name` column, the events as they were.
    await tested.pool.query("DELETE FROM schema_migrations WHERE version > 2");
    await tested.pool.query("ALTER TABLE sessions DROP COLUMN name, DROP COLUMN prompt_open");
    const names = (await (await worker(tested.url)).list()).map(({ sessionId, name }) => ({
      sessionId,
      name,
    }));
    expect(names).toEqual([
      { sessionId: "renamed", name: "second \uFFFE" },
      { sessionId: "unnamed", name: undefined },
    ]);
    expect(await versions(tested)).toEqual(EVERY_VERSION);
  });

  it("renews the lease on the heartbeat's own connection while every pool connection waits", async () => {
    const tested = await database();
    const store = await worker(tested.url, { leaseMs: 2_000, heartbeatMs: 100 });
    const appender = await store.create("held");
    cleanups.push(() => appender.close());
    for (const event of buildEvents([sessionStart("held")])) {
      appender.append(event);
    }
    await appender.commit();
    const leaseUntil = async () => {
      const { rows } = await tested.pool.query<{ lease_until: Date }>(
        "SELECT lease_until FROM sessions WHERE id = 'held'",
      );
      return rows[0]?.lease_until.getTime() ?? Number.NaN;
    };

    // Every connection of the store's query pool (4) waits on a lock of `events` a reader needs.
    const blocker = await tested.pool.connect();
    await blocker.query("BEGIN");
    await blocker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
    const settled: string[] = [];
    const reads = Array.from({ length: 5 }, (_, index) =>
      store.read("held").then(() => settled.push(`read ${index}`)),
    );
    await vi.waitFor(
      async () => {
        const { rows } = await tested.pool.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        expect(rows[0]?.waiting).toBe(4);
      },
      { timeout: 10_000, interval: 20 },
    );
    const before = await leaseUntil();
    await vi.waitFor(async () => expect(await leaseUntil()).toBeGreaterThan(before), {
      timeout: 10_000,
      interval: 20,
    });
    expect(settled).toEqual([]);

    await blocker.query("COMMIT");
    blocker.release();
    await Promise.all(reads);
    expect(settled.sort()).toEqual(["read 0", "read 1", "read 2", "read 3", "read 4"]);
  });

  it("starts on a schema already up to date without the migrations' lock or transaction", async () => {
    const tested = await database();
    expect(await (await worker(tested.url)).list()).toEqual([]);
    // Another process holds the migrations' lock: a start that took it would wait here.
    const holder = await tested.pool.connect();
    cleanups.push(async () => {
      await holder.query("SELECT pg_advisory_unlock_all()");
      holder.release();
    });
    await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);

    const started = (await worker(tested.url)).list().then((sessions) => ({ sessions }));
    let settled = false;
    const waiting = (async () => {
      while (!settled) {
        const { rows } = await tested.pool.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
        if ((rows[0]?.waiting ?? 0) > 0) {
          return "waiting for the migrations' lock";
        }
      }
      return undefined;
    })();
    const first = await Promise.race([started, waiting]);
    settled = true;
    await holder.query("SELECT pg_advisory_unlock_all()");
    await Promise.all([started, waiting]);
    expect(first).toEqual({ sessions: [] });
    expect(await versions(tested)).toEqual(EVERY_VERSION);
  });

  it("a server's host, stopping, closes the store's connections: the heartbeat it keeps while idle too", async () => {
    const tested = await database();
    const name = "turnloop-idle-server";
    const home = await makeTemporaryDirectory();
    // As the server opens its store (server/main.ts `openHost`), its connections named apart.
    const store = openSessionStore(home, `${tested.url}?application_name=${name}`);
    const config = resolveRunConfig(defaultFaceOptions(home), {});
    const host = new SessionHost({ home, env: {}, config, store, releaseWhenIdle: true });
    store.watch?.();
    const connections = async () => {
      const { rows } = await tested.pool.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      return rows[0]?.count;
    };
    // Holding no session, the worker beats on a connection of its own.
    await vi.waitFor(async () => expect(await connections()).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 50,
    });

    await host.closeAll();
    await vi.waitFor(async () => expect(await connections()).toBe(0), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
