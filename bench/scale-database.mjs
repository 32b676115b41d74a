/**
 * A PostgreSQL for the chaos bench (bench/scale.mjs): `TURNLOOP_BENCH_DATABASE_URL` when set,
 * else a server of this machine's PostgreSQL started by scripts/postgres-server.mjs (the same
 * start-up as the tests'), with fsync on, so the figures include durable commits.
 */

import { startPostgresServer } from "../scripts/postgres-server.mjs";

/**
 * Starts (or names) the bench's database.
 * @returns {Promise<{url: string, stop: () => Promise<void>}>}
 */
export async function startDatabase() {
  const given = process.env.TURNLOOP_BENCH_DATABASE_URL;
  if (given !== undefined) {
    return { url: given, stop: async () => undefined };
  }
  try {
    return await startPostgresServer({ prefix: "turnloop-scale-", fsync: true });
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("no PostgreSQL")) {
      throw new Error(`${error.message}, or set TURNLOOP_BENCH_DATABASE_URL`);
    }
    throw error;
  }
}
