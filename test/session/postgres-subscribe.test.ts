/**
 * Following a session across workers (issue 22): a subscriber on one PostgreSQL store sees what
 * another store (another worker) commits, through `LISTEN/NOTIFY`, and rows that came without a
 * notification through the poll: a missed notification costs latency, never an event. A
 * session's deletion reaches the other workers' live listeners (postgres/live.ts).
 */

import { afterEach, describe, expect, it } from "vitest";
import { createEnvelope } from "../../src/session/envelope.js";
import { serializeEvent } from "../../src/session/event-log.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { appendAfter, seen } from "./subscribe-contract.js";
import { makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "PostgreSQL subscriptions across workers",
  () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) {
        await cleanup();
      }
    });

    /** Two workers; the reader polls only every `readerPollMs`. */
    async function twoWorkers(readerPollMs?: number): Promise<{
      database: TestDatabase;
      owner: PostgresSessionStore;
      reader: PostgresSessionStore;
    }> {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const home = await makeTemporaryDirectory();
      const owner = new PostgresSessionStore({ url: database.url, home });
      const reader = new PostgresSessionStore({
        url: database.url,
        home,
        ...(readerPollMs === undefined ? {} : { pollMs: readerPollMs }),
      });
      cleanups.push(
        () => owner.close(),
        () => reader.close(),
      );
      return { database, owner, reader };
    }

    it("a subscriber on another worker sees each commit of the owner, once and in order", async () => {
      const { owner, reader } = await twoWorkers();
      const appender = await owner.create("s1");
      cleanups.push(() => appender.close());
      const appended = appendAfter(appender, [sessionStart("s1")], undefined);
      await appender.commit();
      const subscriber = seen();
      const subscription = await reader.subscribe("s1", 1, (event, seq) =>
        subscriber.onEvent(event, seq),
      );
      cleanups.push(() => subscription.close());
      for (let index = 0; index < 20; index++) {
        appended.push(...appendAfter(appender, [userMessage(`m${index}`)], appended.at(-1)));
        await appender.commit();
      }
      await subscriber.until(appended.length);
      expect(subscriber.events).toEqual(
        appended.map((event, index) => ({ seq: index + 1, event })),
      );
    });

    it("rows stored without a notification reach the subscriber by the poll", async () => {
      // The reader polls every 250 ms, not every 2 s (DEFAULT_POLL_MS): what the poll brings is
      // the same, and the test waits one poll for it.
      const { database, owner, reader } = await twoWorkers(250);
      const appender = await owner.create("s1");
      const [start] = appendAfter(appender, [sessionStart("s1")], undefined);
      await appender.close();
      const subscriber = seen();
      const subscription = await reader.subscribe("s1", 1, (event, seq) =>
        subscriber.onEvent(event, seq),
      );
      cleanups.push(() => subscription.close());
      const message = createEnvelope(userMessage("raw"), start?.id ?? null);
      // As another writer's commit whose notification was lost: the row alone, no NOTIFY.
      await database.pool.query(
        `INSERT INTO events (session_id, seq, epoch, type, data)
       SELECT id, next_seq, epoch, $2, $3 FROM sessions WHERE id = $1`,
        ["s1", message.type, serializeEvent(message)],
      );
      await database.pool.query("UPDATE sessions SET next_seq = next_seq + 1 WHERE id = $1", [
        "s1",
      ]);
      await subscriber.until(2);
      expect(subscriber.events).toEqual([
        { seq: 1, event: start },
        { seq: 2, event: message },
      ]);
    });

    it("a session's deletion reaches the live listeners on another worker, one made before they listened too", async () => {
      const { owner, reader } = await twoWorkers();
      for (const sessionId of ["s1", "s2"]) {
        const appender = await owner.create(sessionId);
        appendAfter(appender, [sessionStart(sessionId)], undefined);
        await appender.commit();
        await appender.close();
      }
      // s1 goes before the reader listens: the notification reached no one there.
      expect(await owner.delete("s1")).toBe(true);
      const told: string[] = [];
      for (const sessionId of ["s1", "s2"]) {
        const stop = reader.live.listen(
          sessionId,
          () => undefined,
          () => told.push(sessionId),
        );
        cleanups.push(async () => stop());
      }
      await expect.poll(() => told).toEqual(["s1"]);
      expect(await owner.delete("s2")).toBe(true);
      await expect.poll(() => told).toEqual(["s1", "s2"]);
    });
  },
);
