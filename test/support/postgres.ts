/**
 * A real PostgreSQL for the tests that need one (issue 22; no mock of the database).
 *
 * `TURNLOOP_TEST_DATABASE_URL` set: that server is used. Otherwise a server of this machine's
 * PostgreSQL (`initdb` and `pg_ctl` on PATH or under `/usr/lib/postgresql/<version>/bin`) is
 * started for the test file in a temporary folder, on a free loopback port, as the `postgres`
 * user when the tests run as root (PostgreSQL refuses root), and stopped in `afterAll`. Each
 * {@link createTestDatabase} call makes a database of its own (`t_<random>`), so tests never see
 * each other's sessions. When neither is possible the suites skip and say why, except with
 * `CI=true`, where that is a failure (`.ci/run` installs PostgreSQL).
 */

import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Pool } from "pg";
import { afterAll } from "vitest";

const run = promisify(execFile);
const POSTGRES_ROOT = "/usr/lib/postgresql";

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

/** The folder holding `initdb` and `pg_ctl`: the newest installed version, else PATH. */
function postgresBinaries(): string | undefined {
  if (existsSync(POSTGRES_ROOT)) {
    const versions = readdirSync(POSTGRES_ROOT)
      .filter((name) => existsSync(join(POSTGRES_ROOT, name, "bin", "initdb")))
      .sort((left, right) => Number(right) - Number(left));
    const [newest] = versions;
    if (newest !== undefined) {
      return join(POSTGRES_ROOT, newest, "bin");
    }
  }
  const onPath = (process.env.PATH ?? "")
    .split(":")
    .find((folder) => folder !== "" && existsSync(join(folder, "initdb")));
  return onPath;
}

let server: Promise<TestServer> | undefined;

// Registered when a test file imports this module (a hook added while tests run is not called).
afterAll(async () => {
  const started = server;
  server = undefined;
  await (await started?.catch(() => undefined))?.stop();
});

/** The file's server, started on first use and stopped after the file's tests. */
function testServer(): Promise<TestServer> {
  if (server === undefined) {
    const external = process.env.TURNLOOP_TEST_DATABASE_URL;
    server =
      external === undefined
        ? startServer()
        : Promise.resolve({ url: external, stop: async () => undefined });
  }
  return server;
}

/** A free loopback TCP port (bound, then released for the server to take). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== "object" || address === null) {
    throw new Error("could not find a free port");
  }
  return address.port;
}

async function startServer(): Promise<TestServer> {
  const binaries = postgresBinaries();
  if (binaries === undefined) {
    throw new Error(postgresUnavailable ?? "no PostgreSQL");
  }
  const folder = await mkdtemp(join(tmpdir(), "turnloop-postgres-"));
  const asRoot = process.getuid?.() === 0;
  const asServerUser = async (command: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", join(binaries, command), ...args])
      : run(join(binaries, command), args);
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    await chown(folder, Number(stdout.trim()), 0);
  }
  const data = join(folder, "data");
  await asServerUser("initdb", [
    ...["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  await asServerUser("pg_ctl", [
    "-D",
    data,
    "-o",
    options,
    "-w",
    "-l",
    join(folder, "log"),
    "start",
  ]);
  // Should the worker end without running afterAll (killed, a crash), the server goes with it.
  const stopAtExit = () => {
    const pgCtl = join(binaries, "pg_ctl");
    const stop = ["-D", data, "-m", "immediate", "stop"];
    spawnSync(asRoot ? "runuser" : pgCtl, asRoot ? ["-u", "postgres", "--", pgCtl, ...stop] : stop);
  };
  process.once("exit", stopAtExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      process.off("exit", stopAtExit);
      await asServerUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(
        () => undefined,
      );
      await rm(folder, { recursive: true, force: true });
    },
  };
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
