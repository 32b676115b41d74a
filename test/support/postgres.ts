/**
 * A real PostgreSQL for the tests that need one (issue 22; no mock of the database).
 *
 * `TURNLOOP_TEST_DATABASE_URL` set: that server is used. Otherwise a server of this machine's
 * PostgreSQL (`initdb` and `pg_ctl` on PATH or under `/usr/lib/postgresql/<version>/bin`) is
 * started by scripts/postgres-server.mjs (a temporary folder, a free loopback port, the `postgres`
 * user when the tests run as root): one for the whole run, by test/support/postgres-global.ts
 * (vitest.config.ts `globalSetup`), or, without that set-up, one for the test file, stopped after
 * the file's tests (cleanups.ts). Each {@link createTestDatabase} call makes a database of its own
 * (`t_<random>`), so tests never see each other's sessions; one a file leaves is dropped after it. When neither is possible the suites skip and say why, except with
 * `CI=true`, where that is a failure (`.ci/run` installs PostgreSQL).
 */

import { randomBytes } from "node:crypto";
import type { Pool } from "pg";
import { inject, vi } from "vitest";
import { postgresBinaries, startPostgresServer } from "../../scripts/postgres-server.mjs";
import { afterEveryFile } from "./cleanups.js";

/**
 * SQL for a `lease_until` that ran out while the server ran, as a frozen or dead holder leaves
 * it: one second ago, or halfway since the server started when that was under two seconds ago
 * (a lease that ran out before the start is its holder's for one lease more: lease.ts
 * `liveLeaseSql`).
 */
export const LAPSED_LEASE_UNTIL =
  "now() - least(interval '1 second', (now() - pg_postmaster_start_time()) / 2)";

/** A running server the tests may use, and how to stop it. */
interface TestServer {
  /** `postgres://…/postgres`: the maintenance database, where test databases are made. */
  url: string;
  stop(): Promise<void>;
}

/** Why PostgreSQL tests cannot run here, or `undefined` when they can. */
export const postgresUnavailable: string | undefined = findUnavailability();

function findUnavailability(): string | undefined {
  if (process.env.TURNLOOP_TEST_DATABASE_URL !== undefined) {
    return undefined;
  }
  if (postgresBinaries() !== undefined) {
    return undefined;
  }
  const reason =
    "no PostgreSQL: set TURNLOOP_TEST_DATABASE_URL, or install the server (Debian: postgresql)";
  if (process.env.CI === "true") {
    throw new Error(`the PostgreSQL tests must run in CI: ${reason}`);
  }
  process.stderr.write(`skipping the PostgreSQL tests: ${reason}\n`);
  return reason;
}

let server: Promise<TestServer> | undefined;

/** The databases made in this file and not dropped yet. */
const undropped = new Set<TestDatabase>();

// After every file that imports this module, or runs after one that did (modules shared).
afterEveryFile(async () => {
  // A pool the test ended itself makes `drop` throw; the database goes with the server anyway.
  await Promise.all([...undropped].map((database) => database.drop().catch(() => undefined)));
  const started = server;
  server = undefined;
  await (await started?.catch(() => undefined))?.stop();
});

/**
 * The server: `TURNLOOP_TEST_DATABASE_URL`'s, else the run's (test/support/postgres-global.ts),
 * else the file's, started on first use (scripts/postgres-server.mjs; durability off) and stopped
 * after the file's tests.
 */
function testServer(): Promise<TestServer> {
  if (server === undefined) {
    const external = process.env.TURNLOOP_TEST_DATABASE_URL;
    const service = inject("postgresService");
    server =
      external !== undefined
        ? Promise.resolve({ url: external, stop: async () => undefined })
        : service !== undefined
          ? runServer(service)
          : startPostgresServer({ prefix: "turnloop-postgres-", fsync: false });
  }
  return server;
}

/** The run's server, from the set-up's service (its `{url}`, or its error as the message). */
async function runServer(service: string): Promise<TestServer> {
  const response = await fetch(service);
  const body = await response.text();
  if (!response.ok) {
    throw new Error(`the run's PostgreSQL server did not start: ${body}`);
  }
  const { url } = JSON.parse(body) as { url: string };
  return { url, stop: async () => undefined };
}

/** A database of its own on the test server. */
export interface TestDatabase {
  /** Its connection URL. */
  url: string;
  /** A pool on it, for what a test checks or damages through SQL. */
  pool: Pool;
  /** Closes the pool and drops the database (connections still open are ended). */
  drop(): Promise<void>;
}

/** Makes a new, empty database `t_<random>` on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { url: serverUrl } = await testServer();
  const { default: pg } = await import("pg");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} STRATEGY FILE_COPY`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.href, max: 2 });
  // A client `end` has not finished closing when `drop` forces the database away reports the
  // server's "terminating connection" (57P01) on the pool; without a listener that is an
  // unhandled error of the test run.
  pool.on("error", () => undefined);
  const database: TestDatabase = {
    url: url.href,
    pool,
    async drop() {
      undropped.delete(database);
      await pool.end();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
  undropped.add(database);
  return database;
}

/** Runs `queries` on the server's `postgres` database as `tested`'s user, `tested`'s name given. */
async function asAdmin(
  tested: TestDatabase,
  queries: (admin: import("pg").Client, name: string) => Promise<void>,
): Promise<void> {
  const url = new URL(tested.url);
  const name = url.pathname.slice(1);
  url.pathname = "/postgres";
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url.href });
  await admin.connect();
  try {
    await queries(admin, name);
  } finally {
    await admin.end();
  }
}

/**
 * Ends every connection to `tested` and refuses new ones, as a stopped server would (an error no
 * retry waits out).
 */
export async function cutOff(tested: TestDatabase): Promise<void> {
  await asAdmin(tested, async (admin, name) => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
  });
}

/** Undoes {@link cutOff}: `tested` takes connections again. */
export async function allowConnections(tested: TestDatabase): Promise<void> {
  await asAdmin(tested, async (admin, name) => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  });
}

/**
 * Resolves once `holds` passes on the rows `sql` (with `params`) answers in `url`'s database, for
 * what a worker changes without announcing it: queried on one connection every 50 ms, for 60 s
 * at most (a bound a loaded machine meets, not a measure of speed), then `holds`' last failure.
 */
export async function queryUntil(
  url: string,
  sql: string,
  params: readonly unknown[],
  holds: (rows: unknown[]) => void,
): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await vi.waitFor(
      async () => {
        const { rows } = await client.query(sql, [...params]);
        holds(rows);
      },
      { timeout: 60_000, interval: 50 },
    );
  } finally {
    await client.end();
  }
}
