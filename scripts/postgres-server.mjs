/**
 * A throwaway PostgreSQL server of this machine's installation, for the tests (one a run:
 * test/support/postgres-global.ts; test/support/postgres.ts) and the chaos bench
 * (bench/scale-database.mjs): `initdb` in a new temporary folder, then `pg_ctl start` on a free
 * loopback port (as the `postgres` user when run as root: PostgreSQL refuses root), trust
 * authentication, user `postgres`, UTF-8. It is stopped with `stop()`, or at the latest when this
 * process exits (a crash, `process.exit`), so no server outlives its user; its folder goes with it.
 *
 * Types: postgres-server.d.mts.
 */

import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where Debian installs PostgreSQL's versions, each with its own `bin`. */
const POSTGRES_ROOT = "/usr/lib/postgresql";

/**
 * The folder holding `initdb` and `pg_ctl`: the newest version under `/usr/lib/postgresql`, else
 * the first folder of `PATH` that has `initdb`.
 * @returns {string | undefined} `undefined` when PostgreSQL is not installed
 */
export function postgresBinaries() {
  if (existsSync(POSTGRES_ROOT)) {
    const [newest] = readdirSync(POSTGRES_ROOT)
      .filter((name) => existsSync(join(POSTGRES_ROOT, name, "bin", "initdb")))
      .sort((left, right) => Number(right) - Number(left));
    if (newest !== undefined) {
      return join(POSTGRES_ROOT, newest, "bin");
    }
  }
  return (process.env.PATH ?? "")
    .split(":")
    .find((folder) => folder !== "" && existsSync(join(folder, "initdb")));
}

/** @returns {Promise<number>} a free loopback TCP port (bound, then released for the server) */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = probe.address();
  await new Promise((resolve) => probe.close(() => resolve(undefined)));
  if (typeof address !== "object" || address === null) {
    throw new Error("could not find a free port");
  }
  return address.port;
}

/**
 * Starts a server.
 * @param {{prefix: string, fsync: boolean}} options `prefix`: of the temporary folder's name;
 * `fsync: false` trades durability against a crash of the machine for speed (tests).
 * @returns {Promise<{url: string, restart: () => Promise<void>, stop: () => Promise<void>}>}
 * `url`: `postgres://…/postgres`, the maintenance database; `restart`: stops the server as
 * `pg_ctl -m fast` does (every connection ends) and starts it again on the same port and data;
 * `stop`: stops the server at once and removes its folder (never throws).
 * @throws Error when PostgreSQL is not installed; `initdb`'s or `pg_ctl`'s failure.
 */
export async function startPostgresServer(options) {
  const binaries = postgresBinaries();
  if (binaries === undefined) {
    throw new Error("no PostgreSQL: install the server (Debian: postgresql)");
  }
  const folder = await mkdtemp(join(tmpdir(), options.prefix));
  const asRoot = process.getuid?.() === 0;
  /** @param {string} command @param {string[]} args */
  const asServerUser = (command, args) =>
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
  const settings = `-c listen_addresses=127.0.0.1 -c max_connections=200${options.fsync ? "" : " -c fsync=off"}`;
  const log = join(folder, "log");
  const startArgs = [
    "-D",
    data,
    "-o",
    `-p ${port} -k ${folder} ${settings}`,
    "-w",
    "-l",
    log,
    "start",
  ];
  await asServerUser("pg_ctl", startArgs);
  const stopArgs = ["-D", data, "-m", "immediate", "-w", "stop"];
  // Should this process end without calling stop (killed by an error, process.exit), the server goes too.
  const stopAtExit = () => {
    const pgCtl = join(binaries, "pg_ctl");
    spawnSync(
      asRoot ? "runuser" : pgCtl,
      asRoot ? ["-u", "postgres", "--", pgCtl, ...stopArgs] : stopArgs,
    );
  };
  process.once("exit", stopAtExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await asServerUser("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      await asServerUser("pg_ctl", startArgs);
    },
    async stop() {
      process.off("exit", stopAtExit);
      await asServerUser("pg_ctl", stopArgs).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
