import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { Database } from "../../src/session/postgres/database.js";
import { LeaseKeeper } from "../../src/session/postgres/lease.js";
import { storageError, storageProblem } from "../../src/session/storage-error.js";
import { gate } from "../support/gate.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";

/**
 * What a database's failure says, for its user and operator (round 3, session 43). N3: the URL's
 * password was cut out of a driver's reason wherever its text appeared (`role "***"` for a role
 * named as its password, a key file's path). N7: a URL's percent-encoding hint was said twice
 * when the failure named the database again. F11: the heartbeat's "unreachable" line gave `pg`'s
 * reason alone ("Connection terminated unexpectedly"), naming neither host, port nor database.
 */

const servers: Server[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((one) => new Promise((done) => one.close(done))));
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

/** A local TCP port whose server answers every connection by closing it (or nothing listens). */
async function port(closeEach: boolean): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (closeEach) {
    servers.push(server);
  } else {
    await new Promise((resolve) => server.close(resolve));
  }
  return typeof address === "object" && address !== null ? address.port : 0;
}

/** The message of `database`'s first connection's failure. */
async function failure(database: Database): Promise<string> {
  const error = await database.pool().then(
    () => new Error("connected"),
    (reason: Error) => reason,
  );
  await database.close();
  return error.message;
}

/** The heartbeat's one line when it finds `url`'s database unreachable. */
async function unreachableLine(url: string): Promise<string> {
  const seen = gate();
  const lines: string[] = [];
  const worker = { id: "w", leaseMs: 60_000, takesInbox: false };
  const database = new Database(url, [1]);
  const keeper = new LeaseKeeper(database, worker, 5, (line) => {
    lines.push(line);
    seen.open();
  });
  keeper.watch();
  await seen.opened;
  await keeper.stop();
  await database.close();
  return lines[0] ?? "";
}

describe("a driver's reason", () => {
  test("keeps a key file's path and cuts a password the parser read as the host", async () => {
    const closed = await port(false);
    const key = `postgres://turnloop:keyfile@127.0.0.1:${closed}/turnloop?sslkey=/nonexistent/keyfile.pem`;
    const host = `postgres://turnloop:abc@secrethost/x@127.0.0.1:${closed}/turnloop`;
    const hint =
      "(its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23)";
    expect([await failure(new Database(key, [1])), await failure(new Database(host, [1]))]).toEqual(
      [
        `postgres://turnloop:***@127.0.0.1:${closed}/turnloop?sslkey=***: ENOENT: no such file or directory, open '/nonexistent/keyfile.pem'`,
        `postgres://turnloop:***@127.0.0.1:${closed}/turnloop ${hint}: getaddrinfo ENOTFOUND ***`,
      ],
    );
  });

  test("a percent-encoding hint is said once when a prompt's store fails", async () => {
    const closed = await port(false);
    const url = `postgres://turnloop:p@ss#word@127.0.0.1:${closed}/turnloop`;
    const database = new Database(url, [1]);
    const error = await database.pool().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    await database.close();
    const problem = storageProblem(storageError(database.displayUrl, error), "unused");
    expect(problem).toBe(
      `could not connect to the session store postgres://turnloop:***@127.0.0.1:${closed}/turnloop (its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23) (getaddrinfo ENOTFOUND ss)`,
    );
  });
});

describe.skipIf(postgresUnavailable !== undefined)("a server's refusal", () => {
  test("names a role or database spelt as the password (the test server takes any password)", async () => {
    const database = await createTestDatabase();
    try {
      const role = new URL(database.url);
      role.username = "role42x";
      role.password = "role42x";
      const named = new URL(database.url);
      named.pathname = "/nosuchdb42";
      named.password = "nosuchdb42";
      const shown = (url: URL) => url.href.replace(`:${url.password}@`, ":***@");
      expect([
        await failure(new Database(role.href, [1])),
        await failure(new Database(named.href, [1])),
      ]).toEqual([
        `${shown(role)}: role "role42x" does not exist`,
        `${shown(named)}: database "nosuchdb42" does not exist`,
      ]);
    } finally {
      await database.drop();
    }
  });
});

describe.skipIf(postgresUnavailable !== undefined)("a login the server refuses", () => {
  // Trial r3s44, F7: a role that does not exist was said as "… could not be written (role "bob"
  // does not exist)", though nothing was written: the store could not connect.
  test("a prompt's store failure says it could not connect, with the reason's SQLSTATE", async () => {
    const database = await createTestDatabase();
    try {
      const role = new URL(database.url);
      role.username = "bob";
      const named = new URL(database.url);
      named.pathname = "/nosuchdb42";
      const problem = async (url: URL) => {
        const store = new Database(url.href, [1]);
        const error = await store.pool().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        await store.close();
        return storageProblem(storageError(store.displayUrl, error), "unused");
      };
      expect([await problem(role), await problem(named)]).toEqual([
        `could not connect to the session store ${role.href} (role "bob" does not exist, code 28000)`,
        `could not connect to the session store ${named.href} (database "nosuchdb42" does not exist, code 3D000)`,
      ]);
    } finally {
      await database.drop();
    }
  });
});

describe("the heartbeat's unreachable line", () => {
  test("names host and port, or the socket, the database and the code, once", async () => {
    // `p@ss#word` is read as host `ss` (the hint says why); the default port and database follow.
    const cutting = await port(true);
    const refusing = await port(false);
    const folder = await mkdtemp(join(tmpdir(), "turnloop-reasons-"));
    folders.push(folder);
    const lines = [
      await unreachableLine(`postgres://turnloop:sec@127.0.0.1:${cutting}/app`),
      await unreachableLine(`postgres://turnloop:p@ss#word@127.0.0.1:${refusing}/app`),
      await unreachableLine(`postgres:///app?host=${folder}`),
      // A user and no host: valid for `pg` (a socket folder in `host=`), though no URL parser's.
      await unreachableLine(`postgres://turnloop:sec@/app?host=${folder}`),
    ];
    const retrying = "this worker can open no session; retrying every 5 ms";
    expect(lines).toEqual([
      `postgres://turnloop:***@127.0.0.1:${cutting}/app is unreachable (host 127.0.0.1, port ${cutting}, database app: Connection terminated unexpectedly): ${retrying}`,
      `postgres://turnloop:***@127.0.0.1:${refusing}/app (its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23) is unreachable (host ss, port 5432, database turnloop: getaddrinfo ENOTFOUND ss): ${retrying}`,
      `postgres:///app?host=${folder} is unreachable (socket ${folder}/.s.PGSQL.5432, database app: connect ENOENT ${folder}/.s.PGSQL.5432): ${retrying}`,
      `postgres://turnloop:***@/app?host=${folder} is unreachable (socket ${folder}/.s.PGSQL.5432, database app: connect ENOENT ${folder}/.s.PGSQL.5432): ${retrying}`,
    ]);
  });
});
