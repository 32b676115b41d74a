/**
 * The PostgreSQL store's connections: a query pool for reads and appends, and, while the worker
 * holds leases, one client of its own for heartbeats (issue 22: sharing the query pool caused
 * false takeovers). The `pg` module is an optional dependency loaded here by dynamic `import()`,
 * so a run without a database URL never loads it. Driver errors reach users with the URL's
 * password redacted.
 */

import type { Client, Pool, PoolClient } from "pg";
import { errorMessage } from "../../events/errors.js";
import { redactDatabaseUrl, redactPassword } from "../database-url.js";
import { SessionLockedError } from "../session-store.js";
import { MissingSessionError } from "./lease.js";
import { migrate } from "./schema.js";

/** The `pg` module's default export. */
type Driver = typeof import("pg")["default"];

/** Connections of the query pool (appends of one worker's sessions share them). */
const POOL_SIZE = 4;

/** The `pg` module, loaded on first use. */
async function loadDriver(): Promise<Driver> {
  try {
    return (await import("pg")).default;
  } catch (error) {
    throw new Error(
      `a database URL was given but the PostgreSQL client (the optional npm package pg) is not installed: ${errorMessage(error)}`,
    );
  }
}

/** One database: the pool, the schema brought up to date once, errors redacted. */
export class Database {
  /** The URL as users may see it (password redacted). */
  readonly displayUrl: string;
  readonly #url: string;
  #ready: Promise<{ pool: Pool; driver: Driver }> | undefined;

  constructor(url: string) {
    this.#url = url;
    this.displayUrl = redactDatabaseUrl(url);
  }

  /** The query pool, connected and migrated. */
  async pool(): Promise<Pool> {
    return (await this.#connect()).pool;
  }

  /** A new client of its own (the heartbeat's), connected. The caller ends it. */
  async ownClient(): Promise<Client> {
    const { driver } = await this.#connect();
    const client = new driver.Client({ connectionString: this.#url });
    client.on("error", () => undefined);
    await this.run(() => client.connect());
    return client;
  }

  /**
   * Runs `work` with a client of the pool inside one transaction.
   * @throws `work`'s error (after a rollback) or the driver's, redacted.
   */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const pool = await this.pool();
    const client = await this.run(() => pool.connect());
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw this.redact(error);
    } finally {
      client.release();
    }
  }

  /** Runs `work`, giving a driver error the database's (redacted) name and no password. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.redact(error);
    }
  }

  /** Closes the pool. Later calls connect again. */
  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready !== undefined) {
      await (await ready.catch(() => undefined))?.pool.end();
    }
  }

  /** `error` as a user may see it: the password cut out, the database named. */
  redact(error: unknown): Error {
    if (error instanceof DatabaseError || !(error instanceof Error)) {
      return error instanceof Error ? error : new DatabaseError(String(error), undefined);
    }
    // The store's own refusals (held, missing, lost) name no password and keep their class; a
    // driver's ENOENT (a socket folder or certificate file that is not there) is the database's.
    if (
      error instanceof SessionLockedError ||
      error instanceof MissingSessionError ||
      error.name === "LeaseLostError"
    ) {
      return error;
    }
    const message = redactPassword(errorMessage(error), this.#url);
    return new DatabaseError(`${this.displayUrl}: ${message}`, error);
  }

  #connect(): Promise<{ pool: Pool; driver: Driver }> {
    this.#ready ??= this.#open();
    return this.#ready;
  }

  async #open(): Promise<{ pool: Pool; driver: Driver }> {
    const driver = await loadDriver();
    // Idle connections must not keep a finished `turnloop -p` alive.
    const pool = new driver.Pool({
      connectionString: this.#url,
      max: POOL_SIZE,
      allowExitOnIdle: true,
    });
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
    } catch (error) {
      this.#ready = undefined;
      await pool.end().catch(() => undefined);
      throw this.redact(error);
    }
    return { pool, driver };
  }
}

/** A database failure, its message naming the database without its password. */
export class DatabaseError extends Error {
  override readonly name = "DatabaseError";
  /** The driver's code when it gave one: a SQLSTATE (`23505`, …) or a system error's (`ECONNREFUSED`). */
  readonly sqlState: string | undefined;

  constructor(message: string, cause: Error | undefined) {
    super(message);
    const code = cause !== undefined && "code" in cause ? cause.code : undefined;
    this.sqlState = typeof code === "string" ? code : undefined;
  }
}
