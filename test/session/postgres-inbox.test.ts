/**
 * The inbox between workers (issue 22): what a face on one worker posts reaches the session's
 * owner once, in order, and leaves no row behind; a message nobody took expires. The table stays
 * bounded however often followers renew their registration (`attach` every 3 s).
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { createEnvelope } from "../../src/session/envelope.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import type { InboxMessage } from "../../src/session/session-store.js";
import { type Gate, gate } from "../support/gate.js";
import {
  createTestDatabase,
  LAPSED_LEASE_UNTIL,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";
import { makeTemporaryDirectory, sessionStart } from "./support.js";

describe.skipIf(postgresUnavailable !== undefined)("the inbox between workers", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup();
    }
  });

  /** An owner holding session `s1` and receiving its inbox; a sender (another worker). */
  async function ownerAndSender() {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const home = await makeTemporaryDirectory();
    const owner = new PostgresSessionStore({ url: database.url, home });
    const sender = new PostgresSessionStore({ url: database.url, home });
    cleanups.push(
      () => owner.close(),
      () => sender.close(),
    );
    const appender = await owner.create("s1");
    cleanups.push(() => appender.close());
    appender.append(createEnvelope(sessionStart("s1"), null));
    await appender.commit();
    const received: InboxMessage[] = [];
    const waiting: Array<{ count: number; gate: Gate }> = [];
    const receiving = await owner.inbox.receive((sessionId, message) => {
      expect(sessionId).toBe("s1");
      received.push(message);
      for (const waiter of waiting.filter(({ count }) => received.length >= count)) {
        waiter.gate.open();
      }
    });
    cleanups.push(() => receiving.close());
    return {
      database,
      owner,
      sender,
      received,
      /** Settles once `count` messages were received in all. */
      until(count: number): Promise<void> {
        const waiter = { count, gate: gate() };
        waiting.push(waiter);
        if (received.length >= count) {
          waiter.gate.open();
        }
        return waiter.gate.opened;
      },
    };
  }

  const rowCount = async (database: TestDatabase) =>
    Number(
      (await database.pool.query<{ n: string }>("SELECT count(*) AS n FROM inbox")).rows[0]?.n,
    );

  it("each message reaches the owner once, in order, and its row is deleted as it is taken", async () => {
    const { database, sender, received, until } = await ownerAndSender();
    const posted: InboxMessage[] = [];
    for (let index = 0; index < 40; index++) {
      const message: InboxMessage =
        index % 10 === 9
          ? { kind: "prompt", payload: { sessionId: "s1", prompt: `p${index}` } }
          : { kind: "attach", payload: { followerId: "f1", expiresInMs: 10_000 } };
      expect(await sender.inbox?.post("s1", message)).toBe(1);
      posted.push(message);
    }
    await until(posted.length);
    expect(received).toEqual(posted);
    expect(await rowCount(database)).toBe(0);
  });

  it("a message nobody took within the expiry, or one an older version marked taken, is deleted unread", async () => {
    const { database, sender, received, until } = await ownerAndSender();
    await database.pool.query(
      `INSERT INTO inbox (session_id, kind, payload, created_at, taken_at) VALUES
         ('s1', 'prompt', '{"sessionId":"s1","prompt":"stale"}', now() - interval '2 minutes', NULL),
         ('s1', 'attach', '{"followerId":"old"}', now() - interval '1 second', now())`,
    );
    const fresh: InboxMessage = { kind: "abort", payload: null };
    expect(await sender.inbox?.post("s1", fresh)).toBe(1);
    await until(1);
    expect(received).toEqual([fresh]);
    expect(await rowCount(database)).toBe(0);
  });

  it("a refusal the owner records is never taken as a message; its follower takes it once", async () => {
    const { database, owner, sender, received, until } = await ownerAndSender();
    const refusal = {
      error: { errorType: "context_length_exceeded" as const, message: "too large: 25010 > 8000" },
      promptTooLarge: { estimatedTokens: 25_010, contextWindow: 8000 },
    };
    expect(await owner.inbox.refuse("s1", "p1", refusal)).toBe(true);
    const abort: InboxMessage = { kind: "abort", payload: null };
    expect(await sender.inbox?.post("s1", abort)).toBe(1);
    await until(1);
    expect(received).toEqual([abort]);
    expect(await sender.inbox?.refusals("s1", ["p0", "p1"])).toEqual([
      { promptId: "p1", ...refusal },
    ]);
    expect(await sender.inbox?.refusals("s1", ["p1"])).toEqual([]);
    expect(await rowCount(database)).toBe(0);
  });

  /** An owner holding session `s1` (its `appender`), a sender and a claimer: three workers. */
  async function threeWorkers() {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const home = await makeTemporaryDirectory();
    const [owner, sender, claimer] = [1, 2, 3].map(
      () => new PostgresSessionStore({ url: database.url, home }),
    ) as [PostgresSessionStore, PostgresSessionStore, PostgresSessionStore];
    cleanups.push(
      () => owner.close(),
      () => sender.close(),
      () => claimer.close(),
    );
    const appender = await owner.create("s1");
    appender.append(createEnvelope(sessionStart("s1"), null));
    await appender.commit();
    // The owner serves its inbox (as the SDK server does) without taking what these tests send.
    await database.pool.query(`UPDATE sessions SET owner = owner || '{"takesInbox": true}'`);
    return { database, owner, sender, claimer, appender };
  }

  it("a holder that takes no messages (-p, the interactive face, acp) is refused a prompt, sent nothing else", async () => {
    const { database, sender } = await threeWorkers();
    await database.pool.query("UPDATE sessions SET owner = owner - 'takesInbox'");
    const prompt: InboxMessage = { kind: "prompt", payload: { sessionId: "s1", prompt: "a" } };
    await expect(sender.inbox.post("s1", prompt)).rejects.toThrow(
      /^Session s1 is open in another process \(this process: .*\), which runs only its own prompts: only a session held by the SDK server \(turnloop --headless\) takes prompts from other processes\./,
    );
    expect(await sender.inbox.post("s1", { kind: "abort", payload: null })).toBeUndefined();
    expect(await rowCount(database)).toBe(0);
  });

  // The last session's note: an SDK server whose inbox reader failed to start still claimed
  // leases that said it takes messages, so another worker's prompt was stored and waited unread
  // until the 60 s expiry. The reader's start marks the leases; this mark fails here (a trigger,
  // held by an advisory lock until the session below is being claimed).
  it("a worker whose inbox reader failed to start: a lease claimed meanwhile refuses a prompt at once, saying why", async () => {
    const { database, owner, sender } = await threeWorkers();
    await database.pool.query("UPDATE sessions SET owner = owner - 'takesInbox'");
    await database.pool.query(`
      CREATE FUNCTION refuse_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(4242);
        RAISE EXCEPTION 'the mark is refused';
      END $$;
      CREATE TRIGGER refuse_mark BEFORE UPDATE ON sessions FOR EACH ROW
        WHEN (NEW.owner->>'takesInbox' = 'true' AND OLD.owner->>'takesInbox' IS NULL
              AND NEW.epoch = OLD.epoch)
        EXECUTE FUNCTION refuse_mark();`);
    const lock = await database.pool.connect();
    try {
      await lock.query("SELECT pg_advisory_lock(4242)");
      const receiving = owner.inbox.receive(() => undefined);
      const failed = expect(receiving).rejects.toThrow(/the mark is refused/);
      await untilWaitingForLock(database);
      const creating = owner.create("s2");
      await lock.query("SELECT pg_advisory_unlock(4242)");
      await failed;
      // The lease must be claimed before the prompt is sent (a gate, not the scheduler's luck).
      const created = await creating;
      cleanups.push(() => created.close());
    } finally {
      lock.release();
    }
    const prompt: InboxMessage = { kind: "prompt", payload: { sessionId: "s2", prompt: "a" } };
    await expect(sender.inbox.post("s2", prompt)).rejects.toThrow(
      /^Session s2 is open in an SDK server \(this process: .*\) that could not start reading prompts from other processes \(its log says why\)/,
    );
    expect(await rowCount(database)).toBe(0);
  });

  /** Settles once a connection waits for an advisory lock (a gate: the trigger above holds). */
  async function untilWaitingForLock(database: TestDatabase): Promise<void> {
    for (;;) {
      const { rows } = await database.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      if (Number(rows[0]?.n) > 0) {
        return;
      }
    }
  }

  it("a prompt is taken by its owner or withdrawn by its sender, never both; a later claim takes nothing sent to the gone owner", async () => {
    const { database, sender, claimer, appender } = await threeWorkers();
    const prompt = (promptId: string): InboxMessage => ({
      kind: "prompt",
      payload: { sessionId: "s1", prompt: promptId, promptId },
    });
    expect(await sender.inbox.post("s1", prompt("a"))).toBe(1);
    expect(await sender.inbox.post("s1", { kind: "abort", payload: null })).toBe(1);
    // The owner lives: nothing sent to it is withdrawn.
    expect(await sender.inbox.withdraw("s1", ["a"])).toEqual({
      withdrawn: [],
      ownerStopped: false,
      epoch: 1,
    });
    expect(await rowCount(database)).toBe(2);

    // The owner's lease lapses (it froze): the sender withdraws its prompt and fences the lease.
    await database.pool.query(`UPDATE sessions SET lease_until = ${LAPSED_LEASE_UNTIL}`);
    expect(await sender.inbox.withdraw("s1", ["a", "unknown"])).toEqual({
      withdrawn: ["a"],
      ownerStopped: "lapsed",
      epoch: 2,
    });
    const { rows } = await database.pool.query<{ owner_id: string | null; epoch: string }>(
      "SELECT owner_id, epoch FROM sessions",
    );
    expect(rows).toEqual([{ owner_id: null, epoch: "2" }]);
    // The frozen owner, awake, can store nothing more.
    appender.append(createEnvelope({ type: "abort", data: { reason: "late" } }, null));
    await expect(appender.commit()).rejects.toThrow();

    // A worker claiming the session takes only what is sent to it: not the gone owner's abort.
    const claimed = await claimer.open("s1");
    cleanups.push(() => claimed.appender.close());
    const received: InboxMessage[] = [];
    const arrived = gate();
    const receiving = await claimer.inbox.receive((_sessionId, message) => {
      received.push(message);
      arrived.open();
    });
    cleanups.push(() => receiving.close());
    // Addressed to the claimer's lease: the fence raised the epoch to 2, the claim to 3.
    expect(await sender.inbox.post("s1", prompt("b"))).toBe(3);
    await arrived.opened;
    expect(received).toEqual([prompt("b")]);
  });

  it("a withdrawal says why nobody holds the lease: the holder's process seen gone, then to another worker nobody's, to the fencing worker again why it fenced", async () => {
    const { database, sender, claimer } = await threeWorkers();
    const prompt = { kind: "prompt", payload: { sessionId: "s1", prompt: "a", promptId: "a" } };
    expect(await sender.inbox.post("s1", prompt as InboxMessage)).toBe(1);
    // The holder ran on this machine and its process is gone; its lease has not lapsed.
    const gonePid = await exitedProcessId();
    await database.pool.query(
      "UPDATE sessions SET owner = jsonb_set(owner, '{pid}', to_jsonb($1::int))",
      [gonePid],
    );
    expect(await sender.inbox.withdraw("s1", ["a"])).toEqual({
      withdrawn: ["a"],
      ownerStopped: "ended",
      epoch: 2,
    });
    // Fenced: nobody holds the lease now, which a follower on another worker is told as such;
    // a second follower on the fencing worker is told what its fence saw (postgres/fenced-here.ts).
    expect(await claimer.inbox.withdraw("s1", ["a"])).toEqual({
      withdrawn: [],
      ownerStopped: "released",
      epoch: 3,
    });
    expect(await sender.inbox.withdraw("s1", ["a"])).toEqual({
      withdrawn: [],
      ownerStopped: "ended",
      epoch: 3,
    });
  });

  it("a prompt sent to a lease another worker's claim replaced is withdrawn without fencing the new owner", async () => {
    const { database, sender, claimer } = await threeWorkers();
    const prompt = { kind: "prompt", payload: { sessionId: "s1", prompt: "a", promptId: "a" } };
    expect(await sender.inbox.post("s1", prompt as InboxMessage)).toBe(1);
    const first = await sender.holder("s1");
    expect(first === undefined || first === "unreadable" ? first : first.epoch).toBe(1);

    // The owner dies (its lease lapses) and another worker claims the session at once.
    await database.pool.query(`UPDATE sessions SET lease_until = ${LAPSED_LEASE_UNTIL}`);
    const claimed = await claimer.open("s1");
    cleanups.push(() => claimed.appender.close());
    const second = await sender.holder("s1");
    expect(second === undefined || second === "unreadable" ? second : second.epoch).toBe(2);
    const leaseBefore = await database.pool.query(
      "SELECT owner_id, epoch, lease_until FROM sessions",
    );

    expect(await sender.inbox.withdraw("s1", ["a"])).toEqual({
      withdrawn: ["a"],
      ownerStopped: false,
      epoch: 2,
    });
    // The new owner's lease is untouched: it still stores events.
    const leaseAfter = await database.pool.query(
      "SELECT owner_id, epoch, lease_until FROM sessions",
    );
    expect(leaseAfter.rows).toEqual(leaseBefore.rows);
    claimed.appender.append(
      createEnvelope({ type: "abort", data: { reason: "still owner" } }, null),
    );
    await claimed.appender.commit();
    expect((await database.pool.query("SELECT count(*)::int AS n FROM inbox")).rows).toEqual([
      { n: 0 },
    ]);
  });
});

/** The id of a process that ran on this machine and has exited. */
async function exitedProcessId(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const exited = once(child, "exit");
  const pid = child.pid;
  await exited;
  if (pid === undefined) {
    throw new Error("the child process did not start");
  }
  return pid;
}
