/**
 * Where a prompt run by another process ends, for a client watching it (a trial, round 3 session
 * 21): a client of worker B sent a prompt that its owner compacted before answering, and B's
 * client got `session.idle` at the end of the summary request, so its `sendAndWait` resolved
 * before the answer; with two file-store `--port` servers the watching client's idle came there
 * too. A follower's idle comes where the owner's loop stopped (session/prompt-end.ts
 * `PromptEnds`): once per prompt, after its last stored event. Real server processes, a real
 * PostgreSQL, the fake model; whole event arrays compared with the log.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient, type TurnloopSession } from "../../src/sdk/index.js";
import { type Fixture, fixtureForEachTest, inLogOrder } from "./support.js";
import { startTcpServer } from "./tcp-server.js";
import { describeWorkers, recordEvents, seenOf } from "./workers-support.js";

/** The model's window: the first answer's reported usage puts the next request past 80 % of it. */
const WINDOW = 8_000;
/** An answer long enough that its summary is smaller (a compaction that would not shrink is discarded). */
const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);

/** Two server processes on one store (`env`), each with a client on the session A created. */
async function twoWorkers(fixture: Fixture, env: Record<string, string>) {
  const withWindow = { ...env, TURNLOOP_CONTEXT_WINDOW: String(WINDOW) };
  const [workerA, workerB] = [
    await startTcpServer(fixture, withWindow),
    await startTcpServer(fixture, withWindow),
  ];
  const clients = [workerA, workerB].map(
    (worker) => new TurnloopClient({ port: worker.port, cwd: fixture.cwd }),
  );
  fixture.onClose(async () => {
    await Promise.all(clients.map((client) => client.stop().catch(() => undefined)));
    await Promise.all([workerA.stop(), workerB.stop()]);
  });
  const [clientA, clientB] = clients as [TurnloopClient, TurnloopClient];
  const onA = await clientA.createSession({ onPermissionRequest: approveAll });
  fixture.model.enqueue({ text: LONG_ANSWER, usage: { input: 7_000, output: 300 } });
  expect((await onA.sendAndWait({ prompt: "first" }))?.data.content).toBe(LONG_ANSWER);
  const onB = await clientB.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
  return { onA, onB };
}

/**
 * B sends a prompt compacted before its answer, then "small"; both answers are asserted. @returns
 * the events stored meanwhile.
 */
async function compactedThenSmall(fixture: Fixture, onB: TurnloopSession): Promise<WireEvent[]> {
  const before = (await onB.getMessages()).length;
  fixture.model.enqueue({ text: "Task: count." }, { text: "big answered" });
  fixture.model.enqueue({ text: "small answered" });
  expect((await onB.sendAndWait({ prompt: "big" }))?.data.content).toBe("big answered");
  expect((await onB.sendAndWait({ prompt: "small" }))?.data.content).toBe("small answered");
  return (await onB.getMessages()).slice(before);
}

/**
 * The stored events of the two prompts: the first compacts (its summary request, whose reply is
 * the summary in `session.compaction_complete`), then answers.
 */
const STORED = [
  "user.message",
  "session.compaction_start",
  "assistant.turn_start",
  "assistant.usage",
  "assistant.turn_end",
  "session.compaction_complete",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
];

/** What a client watching another process's prompts sees of {@link STORED}: one idle per prompt. */
const WATCHED = [
  ...seenOf(STORED.slice(0, 10)),
  "assistant.idle",
  "session.idle",
  ...seenOf(STORED.slice(10)),
  "assistant.idle",
  "session.idle",
];

/** The stored events among `seen` (no idle, no usage info), as the log has them. */
const storedAmong = (seen: readonly WireEvent[]) =>
  inLogOrder(
    seen.filter(
      (event) => !["assistant.idle", "session.idle", "session.usage_info"].includes(event.type),
    ),
  );

describeWorkers("a prompt compacted on another worker (PostgreSQL)", (workers) => {
  test("the follower that sent it gets one idle per prompt, after the answer", async () => {
    const { onB } = await twoWorkers(workers.fixture, workers.env);
    const { seen } = recordEvents(onB, 2);
    const stored = await compactedThenSmall(workers.fixture, onB);
    expect(stored.map((event) => event.type)).toEqual(STORED);
    expect(seen.map((event) => event.type)).toEqual(WATCHED);
    expect(storedAmong(seen)).toEqual(stored);
  }, 120_000);
});

const fixture = fixtureForEachTest();

test("two file-store servers: the client watching the other server's compacted prompt gets one idle per prompt", async () => {
  const { onA, onB } = await twoWorkers(fixture, fixture.env);
  const { seen } = recordEvents(onA, 2);
  const stored = await compactedThenSmall(fixture, onB);
  // B's resume reaches A's client when A has stored it, which may be after the recording began:
  // what A's client sees from the first prompt on is compared.
  const fromPrompt = seen.slice(seen.findIndex((event) => event.type === "user.message"));
  expect(stored.map((event) => event.type)).toEqual(STORED);
  expect(fromPrompt.map((event) => event.type)).toEqual(WATCHED);
  expect(storedAmong(fromPrompt)).toEqual(stored);
}, 120_000);
