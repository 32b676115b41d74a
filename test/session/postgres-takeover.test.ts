import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { Session } from "../../src/session/session.js";
import { SessionLockedError } from "../../src/session/session-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ANSWER_TURN, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { type Harness, shape, startHarness } from "../support/harness.js";
import {
  createTestDatabase,
  LAPSED_LEASE_UNTIL,
  postgresUnavailable,
  type TestDatabase,
} from "../support/postgres.js";
import { callingTools } from "../support/replies.js";

/**
 * Issue 22, takeover: two workers (two store instances, each with its own id) on one database.
 * The first holds a session with a tool running; its lease lapses (set in the past through SQL,
 * as a worker frozen past its lease would leave it); the second claims the session, writes
 * `session.resume` and the interrupted result, and continues. The first's late events are refused.
 */

let harness: Harness | undefined;
let database: TestDatabase | undefined;
const stores: PostgresSessionStore[] = [];

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await database?.drop();
  database = undefined;
});

/** The stored events of a prompt up to its model request. */
const UNTIL_REPLY = ["user.message", "assistant.turn_start"];

/** A tool that runs until `release()` or until its call is aborted; says when it started. */
function holdingTool() {
  let started: () => void = () => undefined;
  let release: () => void = () => undefined;
  const whenStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const aborted: boolean[] = [];
  const tool = defineTool({
    name: "hold",
    description: "Runs until released.",
    input: z.object({}),
    kind: "execute",
    execute: async (_input, context) => {
      started();
      await Promise.race([
        released,
        new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve())),
      ]);
      aborted.push(context.signal.aborted);
      return { content: "held", isError: false };
    },
  });
  return { tool, whenStarted, release, aborted };
}

/** A worker: a store with its own id on the test database. */
function worker(options: { heartbeatMs: number }): PostgresSessionStore {
  if (database === undefined) {
    throw new Error("no database");
  }
  const store = new PostgresSessionStore({ url: database.url, home: "/tmp", ...options });
  stores.push(store);
  return store;
}

async function lapseLease(sessionId: string): Promise<void> {
  await database?.pool.query(
    `UPDATE sessions SET lease_until = ${LAPSED_LEASE_UNTIL} WHERE id = $1`,
    [sessionId],
  );
}

/**
 * A harness whose session is kept by `first`, prompted "hold on": its `hold` tool call (`call_1`)
 * has started and runs until released or aborted; `running` is the prompt's outcome.
 */
async function holdingOn(first: PostgresSessionStore) {
  const hold = holdingTool();
  const started = await startHarness({ tools: [hold.tool], store: () => first });
  harness = started;
  started.server.enqueue(callingTools(["call_1", "hold", {}]), { text: "never sent" });
  const running = started.prompt("hold on");
  await hold.whenStarted;
  return { hold, running, sessionId: started.session.id, started };
}

describe.skipIf(postgresUnavailable !== undefined)("a session taken over by another worker", () => {
  test("a frozen worker's session is claimed once its lease lapsed; its late appends are refused", async () => {
    database = await createTestDatabase();
    // The first worker never beats: it stands for one frozen past its lease.
    const first = worker({ heartbeatMs: 3_600_000 });
    const second = worker({ heartbeatMs: 3_600_000 });
    const { hold, running, sessionId, started } = await holdingOn(first);

    await expect(Session.resume(second, sessionId)).rejects.toBeInstanceOf(SessionLockedError);
    await lapseLease(sessionId);
    const taken = await Session.resume(second, sessionId);
    expect(shape(taken.openingEvents)).toEqual([
      { type: "session.start", data: expect.objectContaining({ sessionId }) },
      {
        type: "session.resume",
        data: expect.objectContaining({ eventCount: 6, repaired: [] }),
      },
      {
        type: "tool.execution_complete",
        data: expect.objectContaining({
          toolCallId: "call_1",
          success: false,
          error: expect.objectContaining({ code: "interrupted" }),
        }),
      },
      // The turn the frozen worker left open is closed after its call (session/open-work.ts).
      { type: "assistant.turn_end", data: { turnId: "turn-1", status: "interrupted" } },
    ]);

    hold.release();
    expect(await running).toEqual({
      error: { errorType: "storage", message: expect.stringMatching(/lease .* was lost/) },
    });
    started.server.enqueue({ text: "Continued." });
    expect(await taken.prompt(started.settings, "go on")).toEqual({ stopReason: "end_turn" });
    await taken.close();

    const stored = (await second.read(sessionId)).events.map((event) => event.type);
    expect(stored).toEqual([
      ...UNTIL_TOOL_START,
      "session.resume",
      "tool.execution_complete",
      "assistant.turn_end",
      "user.message",
      ...ANSWER_TURN,
    ]);
    const { rows } = (await database.pool.query(
      "SELECT seq FROM events WHERE session_id = $1 ORDER BY seq",
      [sessionId],
    )) as { rows: Array<{ seq: string }> };
    expect(rows.map((row) => Number(row.seq))).toEqual(stored.map((_, index) => index + 1));
  });

  test("the heartbeat finds the lease lost and stops the running tool at once", async () => {
    database = await createTestDatabase();
    const first = worker({ heartbeatMs: 20 });
    const second = worker({ heartbeatMs: 3_600_000 });
    const { hold, running, sessionId } = await holdingOn(first);
    // Another worker claims the session (raises its epoch) while the first one runs a tool, as
    // after a pause of the first past its lease; the first's next heartbeat finds it lost.
    await database.pool.query(
      `UPDATE sessions SET owner_id = 'another-worker', epoch = epoch + 1 WHERE id = $1`,
      [sessionId],
    );
    expect(await running).toEqual({
      error: { errorType: "storage", message: expect.stringMatching(/lease .* was lost/) },
    });
    expect(hold.aborted).toEqual([true]);
    // Reading is not writing: the log as stored is still read here (trial 33: getEvents threw).
    await expect(harness?.session.logForReaders()).resolves.toBeUndefined();
    await lapseLease(sessionId);
    const taken = await Session.resume(second, sessionId);
    await taken.close();
    const stored = (await second.read(sessionId)).events.map((event) => event.type);
    expect(stored.slice(-4)).toEqual([
      "tool.execution_start",
      "session.resume",
      "tool.execution_complete",
      "assistant.turn_end",
    ]);
  });

  test("a reply whose commit finds the lease lost never reaches the subscribers: they see what the log holds", async () => {
    database = await createTestDatabase();
    // Its heartbeat never beats: the lease's loss is found by the commit after the reply.
    const first = worker({ heartbeatMs: 3_600_000 });
    const started = await startHarness({ store: () => first });
    harness = started;
    const requested = gate();
    const release = gate();
    started.server.setResponder(() => {
      requested.open();
      return { text: ["lost ", "answer"], pause: { afterEvents: 1, until: release.opened } };
    });
    const running = started.prompt("answer me");
    await requested.opened;
    // Another worker claims the session while the model answers, as after a pause of the first
    // past its lease; the reply, its usage and the turn's end are appended after that.
    await database.pool.query(
      `UPDATE sessions SET owner_id = 'another-worker', epoch = epoch + 1 WHERE id = $1`,
      [started.session.id],
    );
    release.open();
    expect(await running).toEqual({
      error: { errorType: "storage", message: expect.stringMatching(/lease .* was lost/) },
    });

    const stored = await started.persisted();
    expect(stored.map(({ type }) => type)).toEqual(["session.start", ...UNTIL_REPLY]);
    const told = started.events.filter((event) => event.ephemeral !== true);
    // Every stored event the subscriber was told is the log's, and nothing else but the error.
    expect(told.map(({ type }) => type)).toEqual([...UNTIL_REPLY, "session.error"]);
    expect(told.slice(0, -1)).toEqual(stored.slice(1));
  });
});
