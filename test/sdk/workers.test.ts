/**
 * Faces on any worker (issue 22): two real server processes (`--headless --stdio`, spawned by our
 * SDK) against one PostgreSQL database. A client of worker B resumes a session that worker A
 * holds: it follows it (every persisted event once, in order), its prompt reaches A through the
 * inbox and runs there, and its abort stops A's turn.
 */

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { approveAll, type TurnloopSession } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import { type Gate, gate } from "../support/gate.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { type Fixture, startFixture } from "./support.js";

/** What a client saw of one session, and a way to wait for an event. */
function watch(session: TurnloopSession) {
  const events: SessionEvent[] = [];
  const waiting: Array<{ matches: (event: SessionEvent) => boolean; gate: Gate }> = [];
  session.on((event) => {
    events.push(event);
    for (const waiter of waiting.filter(({ matches }) => matches(event))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.gate.open();
    }
  });
  return {
    events,
    /** Settles at the first event (from now on) that `matches`. */
    next(matches: (event: SessionEvent) => boolean): Promise<void> {
      const waiter = { matches, gate: gate() };
      waiting.push(waiter);
      return waiter.gate.opened;
    },
  };
}

const persisted = (events: readonly SessionEvent[]) =>
  events.filter((event) => (event as { ephemeral?: boolean }).ephemeral !== true);

describe.skipIf(postgresUnavailable !== undefined)("a session served by another worker", () => {
  let fixture: Fixture;
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    fixture = await startFixture();
    database = await createTestDatabase();
    env = { ...fixture.env, TURNLOOP_DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });

  /** A worker: a server process of its own, on the shared database. */
  const worker = () => fixture.client({ cliPath: CLI_PATH, cwd: fixture.cwd, env });

  test("a client on worker B prompts a session A holds and sees every persisted event once, in order", async () => {
    const onA = await worker().createSession({ onPermissionRequest: approveAll });
    const seenOnA = watch(onA);
    const onB = await worker().resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const before = await onB.getMessages();

    fixture.model.enqueue({ text: "answered by worker A" });
    // B's server sends its own session.idle where the prompt's stored events end.
    const reply = await onB.sendAndWait({ prompt: "hello from worker B" });
    expect(reply?.data.content).toBe("answered by worker A");

    const after = await onB.getMessages();
    expect(persisted(seenOnB.events)).toEqual(after.slice(before.length));
    expect(seenOnB.events.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "assistant.turn_end",
      "session.idle",
    ]);
    expect(seenOnB.events[0]).toMatchObject({ data: { content: "hello from worker B" } });
    // The prompt ran on A: its client saw it live, deltas and all.
    const stored = persisted(seenOnB.events);
    expect(persisted(seenOnA.events).slice(-stored.length)).toEqual(stored);
    expect(fixture.model.requests).toHaveLength(1);
  });

  test("an abort sent from worker B stops the turn running on worker A", async () => {
    const onA = await worker().createSession({ onPermissionRequest: approveAll });
    const onB = await worker().resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    const requested = gate();
    const never = gate();
    fixture.model.setResponder(() => {
      requested.open();
      return { text: ["never ", "finished"], pause: { afterEvents: 1, until: never.opened } };
    });
    const idle = seenOnB.next((event) => event.type === "session.idle");
    await onB.send({ prompt: "a long one" });
    await requested.opened;
    await onB.abort();
    await idle;
    fixture.model.setResponder(undefined);
    expect(persisted(seenOnB.events)).toEqual((await onB.getMessages()).slice(before.length));
    expect(seenOnB.events.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.turn_end",
      "abort",
      "session.idle",
    ]);
    expect(seenOnB.events[2]).toMatchObject({ data: { status: "cancelled" } });
    expect(seenOnB.events[4]).toMatchObject({ data: { stopReason: "cancelled", aborted: true } });
  });

  test("a prompt sent from B after A let the session go claims it on B and runs there", async () => {
    const onA = await worker().createSession({ onPermissionRequest: approveAll });
    const onB = await worker().resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    await onA.disconnect();

    fixture.model.enqueue({ text: "answered by worker B" });
    const reply = await onB.sendAndWait({ prompt: "who answers?" });
    expect(reply?.data.content).toBe("answered by worker B");
    const after = await onB.getMessages();
    // A recorded session.shutdown when it let go; B wrote its session.resume when it claimed the
    // session, then ran the prompt.
    expect(after.slice(before.length).map((event) => event.type)).toEqual([
      "session.shutdown",
      "session.resume",
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "assistant.turn_end",
    ]);
    // B's app saw A's session.shutdown as it followed, then all but B's own session.resume.
    const [shutdownOfA, , ...ranOnB] = after.slice(before.length);
    expect(persisted(seenOnB.events)).toEqual([shutdownOfA, ...ranOnB]);
  });
});
