/**
 * The one read a worker makes for every session its clients only follow (session/followed-leases.ts,
 * postgres/unheld.ts): which of them no live worker holds, by the rule `withdraw` fences by:
 * released, lapsed, never a live lease, nor a session the store has not. Real PostgreSQL.
 */

import { afterEach, describe, expect, test } from "vitest";
import { createEnvelope } from "../../src/session/envelope.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { makeTemporaryDirectory, sessionStart } from "./support.js";

let database: TestDatabase | undefined;
const stores: PostgresSessionStore[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close().catch(() => undefined)));
  await database?.drop();
  database = undefined;
});

describe.skipIf(postgresUnavailable !== undefined)("sessions nobody holds, read at once", () => {
  test("of a held, a released, a lapsed and an unknown session: the released and the lapsed", async () => {
    database = await createTestDatabase();
    // The holder never beats: the lapsed lease is set through SQL and stays so.
    const store = async () => {
      const made = new PostgresSessionStore({
        url: database?.url ?? "",
        home: await makeTemporaryDirectory(),
        heartbeatMs: 3_600_000,
      });
      stores.push(made);
      return made;
    };
    const holder = await store();
    for (const sessionId of ["held", "released", "lapsed"]) {
      const appender = await holder.create(sessionId);
      appender.append(createEnvelope(sessionStart(sessionId), null));
      await appender.commit();
    }
    await database.pool.query(
      "UPDATE sessions SET owner_id = NULL, owner = NULL, lease_until = NULL WHERE id = 'released'",
    );
    // Ran out while the server ran: between its start and now (a lease that ran out before the
    // start lives on for a lease period after it, lease.ts `liveLeaseSql`; this file may be the
    // run's first to use the server, started a moment ago).
    await database.pool.query(
      `UPDATE sessions SET lease_until = pg_postmaster_start_time() + (now() - pg_postmaster_start_time()) / 2
       WHERE id = 'lapsed'`,
    );
    const follower = await store();
    const unheld = await follower.inbox.unheld(["held", "released", "lapsed", "unknown"]);
    expect(unheld.sort()).toEqual(["lapsed", "released"]);
    expect(await follower.inbox.unheld([])).toEqual([]);
  });
});
