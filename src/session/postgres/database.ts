/**
 * The PostgreSQL store's connections: a query pool for reads and appends, and, while the worker
 * holds leases, one client of its own for heartbeats (issue 22: sharing the query pool caused
 * false takeovers). The `pg` module is an optional dependency loaded here by dynamic `import()`,
 * so a run without a database URL never loads it. Driver errors reach users with the URL's
 * password redacted.
 */

import type { Client, Pool, PoolClient } from "pg";
import { errorCode, errorMessage } from "../../events/errors.js";
import { redactDatabaseUrl } from "../../llm/shown-values.js";
import { SessionLockedError } from "../session-store.js";
import { redactPassword } from "./driver-reasons.js";
import { migrate } from "./schema.js";

/** The `pg` module's default export. */
type Driver = typeof import("pg")["default"];

/** Connections of the query pool (appends of one worker's sessions share them). */
const POOL_SIZE = 4;

/**
 * The waits, in ms, before each new try of a write that failed because the database could not be
 * reached ({@link isTransient}): 5.1 s in all, enough for a restart (`pg_ctl restart`, a
 * failover) to finish, short enough that a database that stays down stops the prompt soon.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [100, 200, 400, 800, 1600, 2000];

/**
 * A test-only setting: one wait in ms, a whole number from 1 to 2,000, used for each of the
 * {@link DEFAULT_RETRY_DELAYS_MS} (as many tries, shorter waits), so that tests of a database
 * that stays away do not wait out the whole retry budget. Any other value is ignored. Not
 * documented for users.
 */
export const TEST_RETRY_DELAY_VARIABLE = "TURNLOOP_TEST_STORE_RETRY_DELAY_MS";

/** The retry waits (ms) of `env`: each {@link TEST_RETRY_DELAY_VARIABLE} when set, else the defaults. */
export function retryDelaysMs(env: NodeJS.ProcessEnv): readonly number[] {
  const value = Number(env[TEST_RETRY_DELAY_VARIABLE]);
  return Number.isInteger(value) && value > 0 && value <= 2000
    ? DEFAULT_RETRY_DELAYS_MS.map(() => value)
    : DEFAULT_RETRY_DELAYS_MS;
}

/**
 * How long, in ms, a new connection may take to open (TCP, TLS, the server's startup answer)
 * unless the URL's `connect_timeout` says otherwise ({@link connectTimeoutMs}). Without a limit a
 * host that drops packets holds each try for the system's TCP timeout (minutes); a connection not
 * open in time fails as a refused one does ({@link isTransient}), within the retry budget.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The connect timeout of `url` in ms: its `connect_timeout` parameter, in seconds as libpq reads
 * it (PostgreSQL's "Connection Strings": 0 or less waits as long as the system does), else
 * {@link DEFAULT_CONNECT_TIMEOUT_MS}. The `pg` client reads no such parameter itself.
 */
export function connectTimeoutMs(url: string): number {
  let value = "";
  try {
    value = new URL(url).searchParams.get("connect_timeout")?.trim() ?? "";
  } catch {
    // A URL `pg` reads some other way (a socket folder as host): no parameter found here.
  }
  const seconds = Number(value);
  return value === "" || !Number.isFinite(seconds)
    ? DEFAULT_CONNECT_TIMEOUT_MS
    : Math.max(0, seconds * 1000);
}

/**
 * SQLSTATEs of a server that is there but cannot serve this connection now (PostgreSQL's
 * Appendix A, "Class 57 — Operator Intervention"): `57P01` admin_shutdown (terminating
 * connection: a fast stop), `57P02` crash_shutdown, `57P03` cannot_connect_now (the database
 * system is starting up, or shutting down).
 */
const TRANSIENT_SQLSTATES = new Set(["57P01", "57P02", "57P03"]);

/** System error codes of a connection that could not be made or was cut (Node's `net`). */
const TRANSIENT_SYSTEM_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Whether `error` says the database could not be reached, so the same statement may succeed on a
 * new connection: a transient SQLSTATE above, Class 08 (connection exception), a cut or refused
 * socket, or `pg`'s own "Connection terminated" (its message when the server closes the socket,
 * or when a connection did not open within the connect timeout; it has no code) and "timeout
 * exceeded when trying to connect" (its pool waited that long for a free connection).
 */
export function isTransient(error: unknown): boolean {
  const cause = error instanceof DatabaseError ? error.cause : error;
  const code = error instanceof DatabaseError ? error.sqlState : errorCode(cause);
  if (code !== undefined) {
    return (
      TRANSIENT_SQLSTATES.has(code) || code.startsWith("08") || TRANSIENT_SYSTEM_CODES.has(code)
    );
  }
  return /^(Connection terminated|timeout exceeded when trying to connect)/.test(
    errorMessage(cause),
  );
}

/**
 * SQLSTATE classes of a statement the database refuses for what it holds, whenever it is sent
 * (PostgreSQL's Appendix A): `22` data exception (a value too long, a bad encoding), `23`
 * integrity constraint violation (a `CHECK`, a foreign key), `42` syntax error or access rule
 * violation (permission denied on the table), `44` WITH CHECK OPTION violation, `P0` a PL/pgSQL
 * `RAISE` (a trigger's refusal). Others (`53` insufficient resources such as a full disk, `40`
 * a deadlock, `55` a lock not available) may pass later, and are tried again at the next commit.
 */
const REFUSAL_SQLSTATE_CLASSES = new Set(["22", "23", "42", "44", "P0"]);

/**
 * Whether `error` is the database refusing the statement for good ({@link
 * REFUSAL_SQLSTATE_CLASSES}), not failing to serve it now: sending it again gets the same answer.
 */
export function isRefusal(error: unknown): boolean {
  const code = error instanceof DatabaseError ? error.sqlState : undefined;
  return code !== undefined && REFUSAL_SQLSTATE_CLASSES.has(code.slice(0, 2));
}

/** The first `error` each client emitted: the server's reason its connection ended. */
const firstErrors = new WeakMap<Client, Error>();

/**
 * Keeps `client`'s first `error` ({@link connectionFailure}); listening at all keeps an error
 * nobody else listens to from ending the process.
 */
function keepFirstError(client: Client): void {
  client.on("error", (error: Error) => {
    if (!firstErrors.has(client)) {
      firstErrors.set(client, error);
    }
  });
}

/**
 * Why the connection of `client` (one of {@link Database.ownClient}) ended: the first `error` it
 * emitted (the server's `terminating connection due to administrator command`, SQLSTATE 57P01, at
 * a fast stop or a `pg_terminate_backend`); `undefined` while it is sound. After that event `pg`
 * refuses every statement with words of its own, no cause and no code ("Client has encountered a
 * connection error and is not queryable"): such a client is not to be used again.
 */
export function connectionFailure(client: Client): Error | undefined {
  return firstErrors.get(client);
}

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
  readonly #retryDelaysMs: readonly number[];
  #ready: Promise<{ pool: Pool; driver: Driver }> | undefined;
  /** The `pg` module once loaded ({@link #place} reads the URL with it). */
  #driver: Driver | undefined;

  /** @param retryDelaysMs see {@link DEFAULT_RETRY_DELAYS_MS} and {@link retried}. */
  constructor(url: string, retryDelaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS) {
    this.#url = url;
    this.displayUrl = redactDatabaseUrl(url);
    this.#retryDelaysMs = retryDelaysMs;
  }

  /** The query pool, connected and migrated. */
  async pool(): Promise<Pool> {
    return (await this.#connect()).pool;
  }

  /** A new client of its own (the heartbeat's), connected. The caller ends it. */
  async ownClient(): Promise<Client> {
    const { driver } = await this.#connect();
    const client = new driver.Client({
      connectionString: this.#url,
      connectionTimeoutMillis: connectTimeoutMs(this.#url),
    });
    keepFirstError(client);
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

  /**
   * Runs `work` (one statement, whole or not at all), trying it again on a new connection after
   * each wait of the retry delays while it fails because the database could not be reached
   * ({@link isTransient}; the pool drops a connection that failed, so the next try opens another).
   * `work` gets whether an earlier try failed (a try cut off after the server committed it must
   * be recognised as done, appender.ts).
   * `once`: one try, no waits (a prompt's end while the database is known down: storage-error.ts).
   * @throws the last try's error, redacted: the current one, never one kept from before.
   */
  async retried<T>(work: (again: boolean) => Promise<T>, once = false): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.run(() => work(attempt > 0));
      } catch (error) {
        const delay = once ? undefined : this.#retryDelaysMs[attempt];
        if (delay === undefined || !isTransient(error)) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
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

  /**
   * `error` as a user may see it: the password cut out, the database named; `connecting`: it is
   * the failure of the store's first connection ({@link DatabaseError.unconnected}).
   */
  redact(error: unknown, connecting = false): Error {
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
    const failure = new DatabaseError(`${this.displayUrl}: ${message}`, error);
    const code = failure.sqlState;
    if (connecting) {
      failure.unconnected =
        code === undefined || message.includes(code) ? message : `${message}, code ${code}`;
    }
    return failure;
  }

  /**
   * Why the database could not be reached, for its operator (the heartbeat's "unreachable" line):
   * where `pg` connects (`host h, port 5432` or `socket /run/postgresql/.s.PGSQL.5432`, then the
   * database), the driver's reason with no password, and its code (`code ECONNREFUSED`, a SQLSTATE)
   * unless the reason names it. `pg`'s reasons alone may name none of these ("Connection
   * terminated unexpectedly"; an empty one with code ECONNREFUSED when every address refused).
   */
  unreachableReason(error: unknown): string {
    const cause = error instanceof DatabaseError ? error.cause : error;
    const reason = redactPassword(errorMessage(cause), this.#url);
    const code = errorCode(cause);
    const said = [reason, code !== undefined && !reason.includes(code) ? `code ${code}` : ""]
      .filter((part) => part !== "")
      .join(", ");
    const place = this.#place();
    const why = said === "" ? "no reason given" : said;
    return place === undefined ? why : `${place}: ${why}`;
  }

  /** Where `pg` connects for this URL (its defaults and `PG*` variables applied), password cut. */
  #place(): string | undefined {
    try {
      const client = this.#driver === undefined ? undefined : new this.#driver.Client(this.#url);
      if (client === undefined) {
        return undefined;
      }
      const { host, port, database } = client;
      const where = host.startsWith("/")
        ? `socket ${host}/.s.PGSQL.${port}`
        : `host ${host}, port ${port}`;
      return redactPassword(`${where}, database ${database ?? ""}`, this.#url);
    } catch {
      // A URL `pg` cannot read (an `sslkey` file that is not there): its reason says so.
      return undefined;
    }
  }

  #connect(): Promise<{ pool: Pool; driver: Driver }> {
    this.#ready ??= this.#open();
    return this.#ready;
  }

  async #open(): Promise<{ pool: Pool; driver: Driver }> {
    const driver = await loadDriver();
    this.#driver = driver;
    // Idle connections must not keep a finished `turnloop -p` alive.
    const pool = new driver.Pool({
      connectionString: this.#url,
      max: POOL_SIZE,
      allowExitOnIdle: true,
      connectionTimeoutMillis: connectTimeoutMs(this.#url),
    });
    // An idle connection's failure: the pool drops that client, and the next query opens another.
    pool.on("error", () => undefined);
    // A connection cut while its client is checked out (the database stopped mid-query) emits
    // `error` on the client as well as failing its query; the pool listens only to idle ones, and
    // an `error` nobody listens to would end the process. The query's failure reports it, and the
    // pool drops a client that is no longer queryable when it is given back.
    pool.on("connect", (client) => client.on("error", () => undefined));
    try {
      const client = await pool.connect().catch((error: unknown) => {
        throw this.redact(error, true);
      });
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
  /**
   * Set when the store's first connection failed (nothing listening; a role, password or database
   * the server refused): the reason without the database's URL and with its code unless it names
   * it (`role "bob" does not exist, code 28000`). Nothing was written, and a prompt's error says
   * so (storage-error.ts `storageProblem`).
   */
  unconnected: string | undefined;

  constructor(message: string, cause: Error | undefined) {
    super(message, { cause });
    const code = cause !== undefined && "code" in cause ? cause.code : undefined;
    this.sqlState = typeof code === "string" ? code : undefined;
  }
}

/** The refusal of a session that does not exist: `code` `ENOENT`, as the file store's. */
export class MissingSessionError extends Error {
  override readonly name = "MissingSessionError";
  readonly code = "ENOENT";
  constructor(sessionId: string) {
    super(`no session ${sessionId}`);
  }
}

/** The `ENOENT` error of a session that does not exist. */
export function missingSession(sessionId: string): Error {
  return new MissingSessionError(sessionId);
}
