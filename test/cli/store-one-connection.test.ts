/**
 * One `turnloop -p` on the PostgreSQL store uses one connection to the database (bench/notes/
 * postgres35.md): its appends and its commit notifications share it. It used two: the first
 * commit's `pg_notify` held the pool's only connection while the next append went out, which
 * opened a second one. The notification keeps its meaning: a worker listening on the database
 * is told of the session's commits, and when it is told, the rows are there to read.
 *
 * The connections that carry appends and notifications are counted by a real TCP relay in front
 * of the test database (postgres-relay.ts); a listener on the database itself reads the rows at
 * each notification.
 */

import { afterEach, describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { postgresUnavailable } from "../support/postgres.js";
import { Relay } from "../support/postgres-relay.js";
import { postgresRunsEachTest } from "../support/postgres-runs.js";

const runs = postgresRunsEachTest("one-connection");
const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

describe.skipIf(postgresUnavailable !== undefined)("-p on the PostgreSQL store", () => {
  test("opens one connection for its appends and notifications; a listener told of a commit reads its rows", async () => {
    const relay = new Relay(new URL(runs.database.url));
    relays.push(relay);
    const relayed = new URL(runs.database.url);
    relayed.port = String(await relay.listen());
    // A listener on another connection, as another worker's: the rows each notification finds.
    const { default: pg } = await import("pg");
    const listener = new pg.Client({ connectionString: runs.database.url });
    await listener.connect();
    const seen: Array<{ payload: string; rows: number }> = [];
    let reading: Promise<unknown> = Promise.resolve();
    listener.on("notification", (message) => {
      reading = reading.then(async () => {
        const { rows } = await listener.query<{ n: string }>(
          "SELECT count(*) AS n FROM events WHERE session_id = $1",
          [message.payload],
        );
        seen.push({ payload: message.payload ?? "", rows: Number(rows[0]?.n) });
      });
    });
    await listener.query("LISTEN turnloop_commits");
    try {
      runs.model.enqueue(
        {
          toolCalls: [{ id: "call_1", name: "glob", arguments: JSON.stringify({ pattern: "*" }) }],
        },
        { text: "done" },
      );
      const result = await runCli(["-p", "hello", "--output-format", "json"], {
        cwd: runs.repository,
        env: { ...runs.environment(), TURNLOOP_DATABASE_URL: relayed.href },
      });
      expect(result.code).toBe(0);
      const sessionId = (JSON.parse(result.stdout) as { session_id: string }).session_id;
      // The heartbeat renews the lease on a connection of its own from 2.5 s on (lease.ts), which
      // a run that slow on a loaded machine opens too: it carries neither.
      expect(relay.carrying).toBe(1);
      expect(relay.accepted).toBeLessThanOrEqual(2);

      // The last commit's notification reached the listener, and so did every row before it.
      const { rows } = await runs.database.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM events WHERE session_id = $1",
        [sessionId],
      );
      const stored = Number(rows[0]?.n);
      await expect.poll(() => seen.at(-1)).toEqual({ payload: sessionId, rows: stored });
      // Each names the session and finds at least the rows the one before it found.
      expect(seen.map(({ payload }) => payload)).toEqual(seen.map(() => sessionId));
      const counts = seen.map(({ rows: read }) => read);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
    } finally {
      await reading;
      await listener.end();
    }
  });
});
