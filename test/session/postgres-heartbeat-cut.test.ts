import { afterEach, describe, expect, test, vi } from "vitest";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { gate } from "../support/gate.js";
import {
  allowConnections,
  createTestDatabase,
  cutOff,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";
import { buildEvents, makeTemporaryDirectory, sessionStart } from "./support.js";

/**
 * Trial r3s44, F1: a worker that held a session said a database outage in `pg`'s own words
 * ("Client has encountered a connection error and is not queryable"), with no cause and no code.
 * The server had ended the heartbeat's connection (a fast stop: SQLSTATE 57P01), `pg` emitted that
 * as an `error` event nobody kept, and the next beat's statement was refused with `pg`'s text.
 * Now the heartbeat says the server's reason and its code. The outage is the real test server
 * ending every connection to the test's database and refusing new ones (support/postgres.ts
 * `cutOff`); the test waits on the heartbeat's own renewal and its lines, never on time.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

/** `tested`'s session `sessionId`'s lease end, as the database has it (ms since the epoch). */
async function leaseUntil(tested: TestDatabase, sessionId: string): Promise<number> {
  const { rows } = await tested.pool.query<{ lease_until: Date }>(
    "SELECT lease_until FROM sessions WHERE id = $1",
    [sessionId],
  );
  return rows[0]?.lease_until.getTime() ?? Number.NaN;
}

describe.skipIf(postgresUnavailable !== undefined)(
  "the heartbeat's connection ended by the server",
  () => {
    test("the unreachable line gives the server's reason and its SQLSTATE", async () => {
      const tested = await createTestDatabase();
      cleanups.push(() => tested.drop());
      const lines: string[] = [];
      const said = [gate(), gate()];
      const store = new PostgresSessionStore({
        url: tested.url,
        home: await makeTemporaryDirectory(),
        heartbeatMs: 200,
        leaseMs: 60_000,
        notice: (line) => {
          lines.push(line);
          said[lines.length - 1]?.open();
        },
      });
      cleanups.push(() => store.close());
      const appender = await store.create("held");
      cleanups.push(() => appender.close());
      const [start] = buildEvents([sessionStart("held")]);
      appender.append(start as NonNullable<typeof start>);
      await appender.commit();

      // The heartbeat's connection is open once it has renewed the lease.
      const claimed = await leaseUntil(tested, "held");
      await vi.waitFor(
        async () => expect(await leaseUntil(tested, "held")).toBeGreaterThan(claimed),
        {
          timeout: 30_000,
          interval: 20,
        },
      );
      await cutOff(tested);
      await said[0]?.opened;
      await allowConnections(tested);
      await said[1]?.opened;

      const { hostname, port, pathname } = new URL(tested.url);
      expect(lines).toEqual([
        `${store.location} is unreachable (host ${hostname}, port ${port}, database ${pathname.slice(1)}: terminating connection due to administrator command, code 57P01): the leases of this worker's session are not renewed; retrying every 200 ms`,
        `${store.location} is reachable again: leases renewed`,
      ]);
    });
  },
);
