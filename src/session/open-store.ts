/**
 * Chooses the session store of a run: the file store under the turnloop home (`file-store.ts`),
 * the default; or, given a database URL (`--store`, `TURNLOOP_DATABASE_URL` or the config files'
 * `store`), the PostgreSQL store (`postgres/store.ts`, issue 22), whose module and the `pg`
 * client are loaded on first use only, so a run without a URL never loads them.
 */

import { isDatabaseUrl, redactDatabaseUrl } from "../llm/shown-values.js";
import { ConfigError, type LoadedConfig, loadConfig } from "./config.js";
import { projectTrust } from "./config-paths.js";
import { FileSessionStore } from "./file-store.js";
import type { LiveEvents } from "./live-events.js";
import { sessionFilesFolder } from "./paths.js";
import type { PostgresSessionStore } from "./postgres/store.js";
import type { SessionEventListener, SessionSubscription } from "./session-follower.js";
import type {
  LeaseHolder,
  OpenedSession,
  SessionAppender,
  SessionInbox,
  SessionStore,
  SessionSummary,
  StoredLog,
} from "./session-store.js";

/**
 * The session store for the turnloop home `home` (absolute, see `turnloopHome`): the PostgreSQL
 * store when `databaseUrl` is given, else the file store. `notice` (the server's stderr log) gets
 * one line when the database becomes unreachable while a lease is held, and one when it is back
 * (postgres/lease.ts `LeaseKeeper`).
 * @throws Error when `databaseUrl` is not a `postgres://` or `postgresql://` URL (the message
 * shows it with its password redacted).
 */
export function openSessionStore(
  home: string,
  databaseUrl?: string,
  notice?: (line: string) => void,
): SessionStore {
  if (databaseUrl === undefined) {
    return new FileSessionStore(home);
  }
  if (!isDatabaseUrl(databaseUrl)) {
    throw new Error(
      `the session store must be a postgres:// or postgresql:// URL, not "${redactDatabaseUrl(databaseUrl)}"`,
    );
  }
  return new DeferredPostgresStore(databaseUrl, home, notice);
}

/**
 * The database URL of a command that has no run config (`turnloop sessions …`): `flag`
 * (`--store`), else `TURNLOOP_DATABASE_URL`, else the `store` of the project's then the user's
 * config file; `undefined` for the file store. A project not trusted yet does not choose the
 * store (project-holds.ts: its sessions would be read from, or imported into, a database its
 * author names): its `store` is held, and `warn` gets the warning line's text. A config file
 * that cannot be read is left to the faces to report.
 */
export async function databaseUrlOf(
  home: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  flag: string | undefined,
  warn: (text: string) => void,
): Promise<string | undefined> {
  const fromEnvironment = env.TURNLOOP_DATABASE_URL;
  if (flag !== undefined) {
    return flag;
  }
  if (fromEnvironment !== undefined && fromEnvironment !== "") {
    return fromEnvironment;
  }
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(home, cwd);
  } catch (error) {
    if (error instanceof ConfigError) {
      return undefined;
    }
    throw error;
  }
  if (loaded.files.some((file) => file.scope === "project" && file.settings.store !== undefined)) {
    const [{ holdUntrustedSettings, heldSettingsWarning }, trust] = await Promise.all([
      import("./project-holds.js"),
      projectTrust(home, cwd),
    ]);
    if (!trust.trusted) {
      const holding = holdUntrustedSettings(loaded);
      loaded = holding.loaded;
      const warning =
        holding.held === undefined ? undefined : heldSettingsWarning(holding.held, trust);
      if (warning !== undefined) {
        warn(warning);
      }
    }
  }
  return loaded.files.findLast((file) => file.settings.store !== undefined)?.settings.store;
}

/** The PostgreSQL store, its module imported when first used. */
class DeferredPostgresStore implements SessionStore {
  readonly location: string;
  readonly #url: string;
  readonly #home: string;
  readonly #notice: ((line: string) => void) | undefined;
  #store: Promise<PostgresSessionStore> | undefined;

  constructor(url: string, home: string, notice?: (line: string) => void) {
    this.#url = url;
    this.#home = home;
    this.#notice = notice;
    this.location = redactDatabaseUrl(url);
  }

  /** The PostgreSQL store's inbox, loaded on first use. */
  readonly inbox: SessionInbox = {
    post: async (sessionId, message) => (await this.#load()).inbox.post(sessionId, message),
    withdraw: async (sessionId, promptIds) =>
      (await this.#load()).inbox.withdraw(sessionId, promptIds),
    unheld: async (sessionIds) => (await this.#load()).inbox.unheld(sessionIds),
    receive: async (onMessage) => (await this.#load()).inbox.receive(onMessage),
    refuse: async (sessionId, promptId, refusal) =>
      (await this.#load()).inbox.refuse(sessionId, promptId, refusal),
    refusals: async (sessionId, promptIds) =>
      (await this.#load()).inbox.refusals(sessionId, promptIds),
  };

  /** The PostgreSQL store's live events (live-events.ts), loaded on first use, in order. */
  readonly live: LiveEvents = {
    publish: (sessionId, event) => {
      this.#load().then(
        (store) => store.live.publish(sessionId, event),
        () => undefined, // The store could not load: no worker follows through it.
      );
    },
    listen: (sessionId, onEvent, onDeleted) => {
      let stop: (() => void) | undefined;
      let stopped = false;
      this.#load().then(
        (store) => {
          stop = stopped ? undefined : store.live.listen(sessionId, onEvent, onDeleted);
        },
        () => undefined,
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
  };

  async create(sessionId: string): Promise<SessionAppender> {
    return (await this.#load()).create(sessionId);
  }

  async open(sessionId: string): Promise<OpenedSession> {
    return (await this.#load()).open(sessionId);
  }

  async read(sessionId: string, options?: { fromSeq?: number }): Promise<StoredLog> {
    return (await this.#load()).read(sessionId, options);
  }

  async subscribe(
    sessionId: string,
    fromSeq: number,
    onEvent: SessionEventListener,
  ): Promise<SessionSubscription> {
    return (await this.#load()).subscribe(sessionId, fromSeq, onEvent);
  }

  async list(filter?: { cwd?: string | undefined }): Promise<SessionSummary[]> {
    return (await this.#load()).list(filter);
  }

  async summary(sessionId: string): Promise<SessionSummary | undefined> {
    return (await this.#load()).summary(sessionId);
  }

  async delete(sessionId: string): Promise<boolean> {
    return (await this.#load()).delete(sessionId);
  }

  async holder(sessionId: string): Promise<LeaseHolder | "unreadable" | undefined> {
    return (await this.#load()).holder(sessionId);
  }

  async exportLog(sessionId: string): Promise<Buffer> {
    return (await this.#load()).exportLog(sessionId);
  }

  async importLog(sessionId: string, log: Buffer): Promise<void> {
    return (await this.#load()).importLog(sessionId, log);
  }

  filesFolder(sessionId: string): string {
    return sessionFilesFolder(this.#home, sessionId);
  }

  /** Loads the store (the `pg` client) and watches the database (see `SessionStore.watch`). */
  watch(): void {
    this.#load().then(
      (store) => store.watch(),
      () => undefined,
    );
  }

  /** Closes the store's connections, if it was loaded (see `SessionStore.close`). */
  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    await (await store?.catch(() => undefined))?.close();
  }

  #load(): Promise<PostgresSessionStore> {
    this.#store ??= import("./postgres/store.js").then(
      ({ PostgresSessionStore }) =>
        new PostgresSessionStore({
          url: this.#url,
          home: this.#home,
          ...(this.#notice === undefined ? {} : { notice: this.#notice }),
        }),
    );
    return this.#store;
  }
}
