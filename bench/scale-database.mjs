/**
 * A PostgreSQL for the chaos bench (bench/scale.mjs): `TURNLOOP_BENCH_DATABASE_URL` when set,
 * else a server of this machine's PostgreSQL started in a temporary folder on a free loopback
 * port (as the `postgres` user when run as root), as test/support/postgres.ts does for the tests.
 */

import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const POSTGRES_ROOT = "/usr/lib/postgresql";

/** @returns {string | undefined} the folder of `initdb` and `pg_ctl` */
function binaries() {
  if (!existsSync(POSTGRES_ROOT)) {
    return undefined;
  }
  const [newest] = readdirSync(POSTGRES_ROOT)
    .filter((name) => existsSync(join(POSTGRES_ROOT, name, "bin", "initdb")))
    .sort((left, right) => Number(right) - Number(left));
  return newest === undefined ? undefined : join(POSTGRES_ROOT, newest, "bin");
}

/** @returns {Promise<number>} */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = probe.address();
  await new Promise((resolve) => probe.close(() => resolve(undefined)));
  if (typeof address !== "object" || address === null) {
    throw new Error("no free port");
  }
  return address.port;
}

/**
 * Starts (or names) the bench's database.
 * @returns {Promise<{url: string, stop: () => Promise<void>}>}
 */
export async function startDatabase() {
  const given = process.env.TURNLOOP_BENCH_DATABASE_URL;
  if (given !== undefined) {
    return { url: given, stop: async () => undefined };
  }
  const bin = binaries();
  if (bin === undefined) {
    throw new Error(
      "no PostgreSQL: install it (Debian: postgresql) or set TURNLOOP_BENCH_DATABASE_URL",
    );
  }
  const folder = await mkdtemp(join(tmpdir(), "turnloop-scale-"));
  const asRoot = process.getuid?.() === 0;
  /** @param {string} command @param {string[]} args */
  const asServerUser = (command, args) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args])
      : run(join(bin, command), args);
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    await chown(folder, Number(stdout.trim()), 0);
  }
  const data = join(folder, "data");
  await asServerUser("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=200`;
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
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await asServerUser("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
