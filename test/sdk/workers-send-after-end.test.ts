/**
 * A follower's send after a prompt ended at the owner, while the follower's reading of the log
 * lags behind (issue 22): worker A runs a session for its own app, worker B follows it for a
 * second app. The owner's prompt ends (stored, its own app told), then the follower sends; the
 * follower's worker has not read that end yet. The follower's app still gets that prompt's idle,
 * as a second app attached to A would (it was told before its send arrived), then its own
 * prompt's. The lag is held with PostgreSQL locks, never with time: A's commit of the prompt's
 * end waits on a row lock of `sessions` while a `LOCK TABLE events` queues behind it, so once
 * the commit lands no read of `events` gets through until the test lets it.
 */

import type pg from "pg";
import { expect, test, vi } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { nextEvent } from "./support.js";
import { describeWorkers, TEXT_PROMPT } from "./workers-support.js";

/** A connection of its own on `url`'s database. */
async function connect(url: string): Promise<pg.Client> {
  const { default: postgres } = await import("pg");
  const client = new postgres.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Resolves once some backend of the database waits for a lock in a query holding `text`. */
async function lockWaitOf(watch: pg.Client, text: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const { rows } = await watch.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
           AND wait_event_type = 'Lock' AND strpos(query, $1) > 0`,
        [text],
      );
      expect(rows).not.toEqual([]);
    },
    { timeout: 60_000, interval: 50 },
  );
}

describeWorkers(
  "a follower's send after the owner's prompt ended, its reading behind",
  (workers) => {
    test("the follower's app gets the ended prompt's idle, then its own prompt's", async () => {
      const { fixture } = workers;
      const url = workers.env.TURNLOOP_DATABASE_URL ?? "";
      const { session: onA } = await workers.ownerSession();
      const workerB = await workers.tcpWorker();
      const app = new TurnloopClient({ port: workerB.port, cwd: fixture.cwd });
      const follower = await app.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
      const seen: WireEvent[] = [];
      follower.on((event) => {
        seen.push(event);
      });
      const rowHolder = await connect(url);
      const tableHolder = await connect(url);
      const watch = await connect(url);
      try {
        // A's prompt: its answer held until the row lock is in place.
        const answer = gate();
        fixture.model.setResponder(() => ({
          text: ["answered ", "on A"],
          pause: { afterEvents: 1, until: answer.opened },
        }));
        const followerTurn = nextEvent(follower, (event) => event.type === "assistant.turn_start");
        const onAnswered = onA.sendAndWait({ prompt: "run on A" });
        await followerTurn;
        await rowHolder.query("BEGIN");
        await rowHolder.query("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", [onA.sessionId]);
        answer.open();
        // A's commit of the turn's end holds its lock on `events` and waits for the row.
        await lockWaitOf(watch, "INSERT INTO events");
        await tableHolder.query("BEGIN");
        const tableLocked = tableHolder.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
        await lockWaitOf(watch, "LOCK TABLE events");
        await rowHolder.query("COMMIT");
        await tableLocked;
        // The prompt ended on A (its app told); B cannot read that end yet.
        expect((await onAnswered)?.data.content).toBe("answered on A");
        fixture.model.setResponder(undefined);
        fixture.model.enqueue({ text: "answered for B's app" });
        const onB = follower.sendAndWait({ prompt: "sent on B" });
        // B's server handles requests in arrival order: once the ping is answered, the send began.
        await app.ping();
        await tableHolder.query("COMMIT");
        expect((await onB)?.data.content).toBe("answered for B's app");
      } finally {
        await rowHolder.end();
        await tableHolder.end();
        await watch.end();
      }
      const fromPrompt = seen.slice(seen.findIndex((event) => event.type === "user.message"));
      expect(fromPrompt.map((event) => event.type)).toEqual([...TEXT_PROMPT, ...TEXT_PROMPT]);
      expect(
        fromPrompt.flatMap((event) => (event.type === "user.message" ? [event.data.content] : [])),
      ).toEqual(["run on A", "sent on B"]);
      await app.stop();
    }, 120_000);
  },
);
