/**
 * Faces on any worker (issue 22): two real server processes (`--headless --stdio`, spawned by our
 * SDK) against one PostgreSQL database. A client of worker B resumes a session that worker A
 * holds: it follows it (every persisted event once, in order), its prompt reaches A through the
 * inbox and runs there, its abort stops A's turn, and its answer to A's permission question is
 * applied by A (the first answer wins).
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import {
  approveAll,
  type PermissionRequest,
  type TurnloopClient,
  type TurnloopSession,
} from "../../src/sdk/index.js";
import { runCli } from "../support/cli.js";
import { ANSWER_TURN } from "../support/event-sequences.js";
import { type Gate, gate } from "../support/gate.js";
import { postgresUnavailable } from "../support/postgres.js";
import { inLogOrder } from "./support.js";
import {
  ABORTED_PROMPT,
  ASKED_PROMPT,
  holdAnswers,
  seenOf,
  TEXT_PROMPT,
  TEXT_PROMPT_STORED,
  useWorkers,
} from "./workers-support.js";

/** What a client saw of one session, and a way to wait for an event. */
function watch(session: TurnloopSession) {
  const events: WireEvent[] = [];
  const waiting: Array<{ matches: (event: WireEvent) => boolean; gate: Gate }> = [];
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
    next(matches: (event: WireEvent) => boolean): Promise<void> {
      const waiter = { matches, gate: gate() };
      waiting.push(waiter);
      return waiter.gate.opened;
    },
  };
}

/** The stored events: `assistant.usage` too, though marked ephemeral as Copilot's type has it. */
const persisted = (events: readonly WireEvent[]) =>
  inLogOrder(
    events.filter(
      (event) =>
        (event as { ephemeral?: boolean }).ephemeral !== true || event.type === "assistant.usage",
    ),
  );

describe.skipIf(postgresUnavailable !== undefined)("a session served by another worker", () => {
  const workers = useWorkers();
  // Two server processes for all the tests, started together: each test makes sessions of its
  // own on them, and a process's start was most of a test's time.
  let workerA: TurnloopClient;
  let workerB: TurnloopClient;
  beforeAll(async () => {
    [workerA, workerB] = [workers.worker(), workers.worker()];
    await Promise.all([workerA.start(), workerB.start()]);
  });

  test("a client on worker B prompts a session A holds and sees every persisted event once, in order", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const seenOnA = watch(onA);
    const onB = await workerB.resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const before = await onB.getMessages();

    workers.fixture.model.enqueue({ text: "answered by worker A" });
    // B's server sends its own session.idle where the prompt's stored events end.
    const reply = await onB.sendAndWait({ prompt: "hello from worker B" });
    expect(reply?.data.content).toBe("answered by worker A");

    const after = await onB.getMessages();
    expect(persisted(seenOnB.events)).toEqual(after.slice(before.length));
    expect(seenOnB.events.map((event) => event.type)).toEqual(TEXT_PROMPT);
    expect(seenOnB.events[0]).toMatchObject({ data: { content: "hello from worker B" } });
    // The prompt ran on A: its client saw it live, deltas and all.
    const stored = persisted(seenOnB.events);
    expect(persisted(seenOnA.events).slice(-stored.length)).toEqual(stored);
    // The usage info too, as A's client got it (session-18 brief #7: a follower got none).
    const usageInfo = (events: readonly WireEvent[]) =>
      events.flatMap((event) => (event.type === "session.usage_info" ? [event.data] : []));
    expect(usageInfo(seenOnB.events)).toEqual(usageInfo(seenOnA.events));
    expect(usageInfo(seenOnB.events)).toHaveLength(1);
    expect(workers.fixture.model.requests).toHaveLength(1);
  });

  test("an abort sent from worker B stops the turn running on worker A", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const onB = await workerB.resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    const requested = holdAnswers(workers.fixture.model);
    const idle = seenOnB.next((event) => event.type === "session.idle");
    await onB.send({ prompt: "a long one" });
    await requested.opened;
    await onB.abort();
    await idle;
    workers.fixture.model.setResponder(undefined);
    expect(persisted(seenOnB.events)).toEqual((await onB.getMessages()).slice(before.length));
    expect(seenOnB.events.map((event) => event.type)).toEqual([
      ...ABORTED_PROMPT,
      "assistant.idle",
      "session.idle",
    ]);
    expect(seenOnB.events[2]).toMatchObject({ data: { status: "cancelled" } });
    expect(seenOnB.events[4]).toMatchObject({ type: "assistant.idle", data: { aborted: true } });
    expect(seenOnB.events[5]).toMatchObject({ data: { stopReason: "cancelled", aborted: true } });
  });

  test("a permission question asked on worker A is answered from worker B: the tool runs, the late answer of A's client is ignored", async () => {
    const askedOnA: PermissionRequest[] = [];
    const askedOnB: PermissionRequest[] = [];
    const ranOnA = gate();
    // A's app answers too, but only after the tool ran on B's answer: a late answer.
    const onA = await workerA.createSession({
      onPermissionRequest: async (request) => {
        askedOnA.push(request);
        await ranOnA.opened;
        return { kind: "reject" };
      },
    });
    const seenOnA = watch(onA);
    void seenOnA.next((event) => event.type === "tool.execution_complete").then(ranOnA.open);
    const onB = await workerB.resumeSession(onA.sessionId, {
      onPermissionRequest: (request) => {
        askedOnB.push(request);
        return { kind: "approve-once" };
      },
    });
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    workers.fixture.model.enqueue(
      {
        toolCalls: [
          { id: "call_w", name: "create", arguments: '{"path":"from-b.txt","file_text":"hi"}' },
        ],
      },
      { text: "Created." },
      { text: "Still here." },
    );
    const reply = await onB.sendAndWait({ prompt: "create from-b.txt" });
    expect(reply?.data.content).toBe("Created.");
    expect(await readFile(join(workers.fixture.cwd, "from-b.txt"), "utf8")).toBe("hi");
    // B's client was asked exactly what A's was.
    expect(askedOnB).toHaveLength(1);
    expect(askedOnB).toEqual(askedOnA);
    expect(askedOnB[0]).toMatchObject({
      kind: "write",
      fileName: join(workers.fixture.cwd, "from-b.txt"),
    });

    // The session goes on after the late answer.
    const again = await onB.sendAndWait({ prompt: "still there?" });
    expect(again?.data.content).toBe("Still here.");
    const after = (await onB.getMessages()).slice(before.length);
    // Every stored event once, in order, on both clients, with the same wire fields.
    const storedOnB = persisted(seenOnB.events);
    expect(storedOnB.map((event) => event.id)).toEqual(after.map((event) => event.id));
    expect(persisted(seenOnA.events).slice(-after.length)).toEqual(storedOnB);
    expect(seenOnB.events.map((event) => event.type)).toEqual([...ASKED_PROMPT, ...TEXT_PROMPT]);
    const decisions = seenOnB.events.flatMap((event) =>
      event.type === "permission.completed" ? [event.data] : [],
    );
    expect(decisions).toEqual([expect.objectContaining({ decision: "allowed", scope: "once" })]);
    expect(decisions[0]).toMatchObject({ result: { kind: "approved" } });
  });

  test("a prompt sent from B after A let the session go claims it on B and runs there", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const onB = await workerB.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    const shutdownSeen = seenOnB.next((event) => event.type === "session.shutdown");
    await onA.disconnect();
    // B sends once it read A's session.shutdown: it claims the session instead of posting.
    await shutdownSeen;

    workers.fixture.model.enqueue({ text: "answered by worker B" });
    const reply = await onB.sendAndWait({ prompt: "who answers?" });
    expect(reply?.data.content).toBe("answered by worker B");
    const after = await onB.getMessages();
    // A recorded session.shutdown when it let go; B wrote its session.resume when it claimed the
    // session, then ran the prompt.
    expect(after.slice(before.length).map((event) => event.type)).toEqual([
      "session.shutdown",
      "session.resume",
      "user.message",
      ...ANSWER_TURN,
    ]);
    // B's app saw A's session.shutdown as it followed, then B's own session.resume and the
    // prompt: every event of the log, once, in order, whoever wrote it.
    expect(persisted(seenOnB.events)).toEqual(after.slice(before.length));
  });
  test("two identical prompts sent from worker B are both answered, in order, with one idle after the second", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const onB = await workerB.resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    workers.fixture.model.enqueue({ text: "first answer" }, { text: "second answer" });
    const idle = seenOnB.next((event) => event.type === "session.idle");
    await onB.send({ prompt: "the same words" });
    await onB.send({ prompt: "the same words" });
    await idle;
    // Whether B's second prompt reached A's queue before the first ended is a race, and with it
    // A's queue changes (pending_messages.modified, which follow to B: workers-live-events).
    expect(withoutQueueChanges(seenOnB.events)).toEqual([
      ...seenOf(TEXT_PROMPT_STORED),
      ...TEXT_PROMPT,
    ]);
    const prompts = seenOnB.events.flatMap((event) =>
      event.type === "user.message" ? [event.data] : [],
    );
    expect(prompts.map(({ content }) => content)).toEqual(["the same words", "the same words"]);
    // Each carries the id worker B gave it, which is how B told them apart.
    const [first, second] = prompts.map(({ promptId }) => promptId);
    expect(first).toEqual(expect.any(String));
    expect(second).toEqual(expect.any(String));
    expect(first).not.toBe(second);
    const answers = seenOnB.events.flatMap((event) =>
      event.type === "assistant.message" ? [event.data.content] : [],
    );
    expect(answers).toEqual(["first answer", "second answer"]);
  });

  // B's prompt reaches A before or after A's client detaches: either way A never runs it (A
  // refuses prompts from the detach on) and B reads the session.shutdown.
  test("worker A closing the session with B's prompt queued ends B's wait with an error", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const onB = await workerB.resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const requested = holdAnswers(workers.fixture.model);
    const requestsBefore = workers.fixture.model.requests.length;
    await onA.send({ prompt: "A's long prompt" });
    await requested.opened;
    const idle = seenOnB.next((event) => event.type === "session.idle");
    await onB.send({ prompt: "queued behind A's" });
    await onA.disconnect();
    await idle;
    workers.fixture.model.setResponder(undefined);
    // Queued on A or not (the race above), B hears A's queue change only if it was.
    expect(withoutQueueChanges(seenOnB.events)).toEqual([
      ...ABORTED_PROMPT,
      "session.shutdown",
      "session.error",
      "assistant.idle",
      "session.idle",
    ]);
    expect(seenOnB.events[0]).toMatchObject({ data: { content: "A's long prompt" } });
    expect(seenOnB.events.find((event) => event.type === "session.error")).toMatchObject({
      data: {
        errorType: "server",
        message: `the worker running session ${onA.sessionId} closed it before 1 prompt sent from this worker ended; send again to run it here`,
      },
    });
    // B's prompt never ran: only A's reached the model.
    expect(workers.fixture.model.requests.length - requestsBefore).toBe(1);
  });

  test("worker A's own client aborting with B's prompt queued ends B's sendAndWait at once, as a local app's: the abort, then the aborted idle", async () => {
    const onA = await workerA.createSession({ onPermissionRequest: approveAll });
    const seenOnA = watch(onA);
    const onB = await workerB.resumeSession(onA.sessionId);
    const seenOnB = watch(onB);
    const before = await onB.getMessages();
    const requested = holdAnswers(workers.fixture.model);
    const requestsBefore = workers.fixture.model.requests.length;
    await onA.send({ prompt: "A's long prompt" });
    await requested.opened;
    // A tells its client when B's prompt joins its queue behind the running one.
    const queuedOnA = seenOnA.next((event) => event.type === "pending_messages.modified");
    const idle = seenOnB.next((event) => event.type === "session.idle");
    // The default timeout (60 s): only the owner's record of the drop ends this wait in time.
    const waited = onB.sendAndWait({ prompt: "queued behind A's" }).then(
      (reply) => reply ?? "no reply",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    await queuedOnA;
    await onA.abort();
    // As the Copilot SDK's sendAndWait of an aborted prompt: it resolves, with no reply.
    expect(await waited).toBe("no reply");
    await idle;
    workers.fixture.model.setResponder(undefined);
    // B's prompt joined A's queue (the gate above) and the abort dropped it: A's two queue
    // changes reach B as they reach A's own app, between the turn's start and its end.
    expect(seenOnB.events.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "pending_messages.modified",
      "pending_messages.modified",
      ...ABORTED_PROMPT.slice(2),
      "assistant.idle",
      "session.idle",
    ]);
    const stored = (await onB.getMessages()).slice(before.length);
    // Every stored event once, in order; then B's own idles, which A did not store (nor the
    // queue changes, which are live only).
    expect(seenOnB.events.slice(0, -2).filter((event) => !event.ephemeral)).toEqual(stored);
    // One abort: the loop's, naming B's prompt by the id B gave it.
    expect(stored.map(({ type }) => type)).toEqual([...ABORTED_PROMPT]);
    // Copilot's AbortReason on the wire; the log's text beside it.
    expect(stored.at(-1)?.data).toEqual({
      reason: "user_initiated",
      message: "cancelled by the user",
      droppedPromptIds: [expect.any(String)],
    });
    // `sessions show` prints it once.
    const shown = await runCli(["sessions", "show", onA.sessionId], {
      cwd: workers.fixture.cwd,
      env: workers.env,
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout.split("\n").filter((line) => line.includes("aborted:"))).toEqual([
      "aborted: cancelled by the user",
    ]);
    // A local app's queued prompt dropped by the abort ends alike (workers-abort-queued.test.ts).
    expect(seenOnB.events.slice(-2).map((event) => event.data)).toEqual([
      { aborted: true },
      { stopReason: "cancelled", aborted: true, mode: "interactive" },
    ]);
    // B's prompt never ran: only A's reached the model.
    expect(workers.fixture.model.requests.length - requestsBefore).toBe(1);
  });
});

/** The types of `events` without A's queue changes (`pending_messages.modified`). */
function withoutQueueChanges(events: ReadonlyArray<{ type: string }>): string[] {
  return events.map((event) => event.type).filter((type) => type !== "pending_messages.modified");
}
