/**
 * A real PostgreSQL for the tests that need one (issue 22; no mock of the database).
 *
 * `TURNLOOP_TEST_DATABASE_URL` set: that server is used. Otherwise a server of this machine's
 * PostgreSQL (`initdb` and `pg_ctl` on PATH or under `/usr/lib/postgresql/<version>/bin`) is
 * started for the test file by scripts/postgres-server.mjs (a temporary folder, a free loopback
 * port, the `postgres` user when the tests run as root), and stopped after the file's tests
 * (cleanups.ts). Each {@link createTestDatabase} call makes a database of its own (`t_<random>`),
 * so tests never see each other's sessions. When neither is possible the suites skip and say why, except with
 * `CI=true`, where that is a failure (`.ci/run` installs PostgreSQL).
 */

import { randomBytes } from "node:crypto";
import type { Pool } from "pg";
import { postgresBinaries, startPostgresServer } from "../../scripts/postgres-server.mjs";
import { afterEveryFile } from "./cleanups.js";

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

// After every file that imports this module, or runs after one that did (modules shared).
afterEveryFile(async () => {
  const started = server;
  server = undefined;
  await (await started?.catch(() => undefined))?.stop();
});

/**
 * The file's server, started on first use (scripts/postgres-server.mjs; durability off: it lives
 * for one test file) and stopped after the file's tests.
 */
function testServer(): Promise<TestServer> {
  if (server === undefined) {
    const external = process.env.TURNLOOP_TEST_DATABASE_URL;
    server =
      external === undefined
        ? startPostgresServer({ prefix: "turnloop-postgres-", fsync: false })
        : Promise.resolve({ url: external, stop: async () => undefined });
  }
  return server;
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
  return {
    url: url.href,
    pool,
    async drop() {
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
}

/**
 * Ends every connection to `tested` and refuses new ones, as a stopped server would (an error no
 * retry waits out).
 */
export async function cutOff(tested: TestDatabase): Promise<void> {
  const url = new URL(tested.url);
  const name = url.pathname.slice(1);
  url.pathname = "/postgres";
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url.href });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
  } finally {
    await admin.end();
  }
}
