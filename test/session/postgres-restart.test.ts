/**
 * Trial 33: PostgreSQL stopped for longer than a lease and started again. While the server was
 * down no worker could renew its leases, so a lease that ran out during the outage is not taken
 * for its holder's death: for one lease period after the start (lease.ts `liveLeaseSql`), another
 * worker's claim is refused, a prompt it sends goes to the holder's inbox, and it withdraws
 * nothing. The holder renews at its next heartbeat, well inside that lease.
 *
 * The server is one of this file's own (scripts/postgres-server.mjs), restarted with
 * `pg_ctl -m fast` as an operator would; the run's shared server is never restarted.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgresServer } from "../../scripts/postgres-server.mjs";
import { createEnvelope } from "../../src/session/envelope.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { SessionLockedError } from "../../src/session/session-store.js";
import { postgresUnavailable } from "../support/postgres.js";
import { makeTemporaryDirectory, sessionStart } from "./support.js";

type Server = Awaited<ReturnType<typeof startPostgresServer>>;

describe.skipIf(postgresUnavailable !== undefined || process.env.TURNLOOP_TEST_DATABASE_URL)(
  "leases across a restart of PostgreSQL",
  () => {
    let server: Server | undefined;
    const stores: PostgresSessionStore[] = [];
    beforeAll(async () => {
      server = await startPostgresServer({ prefix: "turnloop-restart-", fsync: false });
    });
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
      await server?.stop();
    });

    async function worker(options: { leaseMs?: number; heartbeatMs?: number }) {
      if (server === undefined) {
        throw new Error("no server");
      }
      const store = new PostgresSessionStore({
        url: server.url,
        home: await makeTemporaryDirectory(),
        ...options,
      });
      stores.push(store);
      return store;
    }

    async function query<Row>(sql: string): Promise<Row[]> {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: server?.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Row[];
      } finally {
        await client.end();
      }
    }

    it("a lease that ran out while the server was down stays its holder's for one lease; a prompt sent meanwhile goes to it", async () => {
      // The holder never beats here: its lease is set through SQL, as the outage left it.
      const holder = await worker({ heartbeatMs: 3_600_000 });
      const appender = await holder.create("held");
      appender.append(createEnvelope(sessionStart("held"), null));
      await appender.commit();
      await holder.inbox.receive(() => undefined);
      await server?.restart();
      await query(
        "UPDATE sessions SET lease_until = pg_postmaster_start_time() - interval '1 second' WHERE id = 'held'",
      );

      // A worker whose leases last an hour: the holder has an hour from the start to renew.
      const other = await worker({ heartbeatMs: 3_600_000, leaseMs: 3_600_000 });
      await expect(other.open("held")).rejects.toBeInstanceOf(SessionLockedError);
      const seen = await other.holder("held");
      expect(seen === undefined || seen === "unreadable" ? seen : seen.epoch).toBe(1);
      const prompt = { kind: "prompt", payload: { sessionId: "held", prompt: "p", promptId: "p" } };
      expect(await other.inbox.post("held", prompt as never)).toBe(1);
      expect(await other.inbox.withdraw("held", ["p"])).toEqual({
        withdrawn: [],
        ownerStopped: false,
        epoch: 1,
      });

      // A worker whose leases last 1 ms: that grace is long past, so the lease is taken over.
      const late = await worker({ heartbeatMs: 3_600_000, leaseMs: 1 });
      const taken = await late.open("held");
      expect(await query("SELECT epoch FROM sessions WHERE id = 'held'")).toEqual([{ epoch: "2" }]);
      await taken.appender.close();
      await appender.close().catch(() => undefined);
    });

    it("a lease that ran out while the server ran is taken over at once", async () => {
      const holder = await worker({ heartbeatMs: 3_600_000 });
      const appender = await holder.create("lapsed");
      appender.append(createEnvelope(sessionStart("lapsed"), null));
      await appender.commit();
      await query(
        "UPDATE sessions SET lease_until = now() - (now() - pg_postmaster_start_time()) / 2 WHERE id = 'lapsed'",
      );
      const other = await worker({ heartbeatMs: 3_600_000, leaseMs: 3_600_000 });
      const taken = await other.open("lapsed");
      expect(await query("SELECT epoch FROM sessions WHERE id = 'lapsed'")).toEqual([
        { epoch: "2" },
      ]);
      await taken.appender.close();
      await appender.close().catch(() => undefined);
    });
  },
);
