/**
 * Two apps following one session of another worker (issue 22): both connect to worker B and
 * resume a session worker A holds. Each gets every stored event once, in log order, as a local
 * session's apps each get every event (server/session-clients.ts); one app leaving does not
 * silence the other, whose own prompts keep working.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { type Gate, gate } from "../support/gate.js";
import { describeWorkers, TEXT_PROMPT, TEXT_PROMPT_STORED } from "./workers-support.js";

/** Records every event of `session`; `ended[n]` opens at its (n+1)th `session.idle`. */
function record(session: { on(handler: (event: WireEvent) => void): () => void }, ends: number) {
  const seen: WireEvent[] = [];
  const ended: Gate[] = Array.from({ length: ends }, () => gate());
  session.on((event) => {
    seen.push(event);
    if (event.type === "session.idle") {
      ended[seen.filter((earlier) => earlier.type === "session.idle").length - 1]?.open();
    }
  });
  return { seen, ended };
}

/** The stored events among `events`: not the usage info and idles the server derives. */
const persisted = (events: readonly WireEvent[]) =>
  events.filter((event) => !DERIVED.includes(event.type));
const DERIVED = ["session.usage_info", "assistant.idle", "session.idle"];

describeWorkers("two apps on worker B following a session worker A holds", (workers) => {
  test("both get every event of A's prompt; after one leaves, the other gets the next prompts, its own too", async () => {
    const { session: onA } = await workers.ownerSession();
    const workerB = await workers.tcpWorker();
    const { cwd, model } = workers.fixture;
    const first = new TurnloopClient({ port: workerB.port, cwd });
    const second = new TurnloopClient({ port: workerB.port, cwd });
    const firstSession = await first.resumeSession(onA.sessionId, {
      onPermissionRequest: approveAll,
    });
    const secondSession = await second.resumeSession(onA.sessionId, {
      onPermissionRequest: approveAll,
    });
    const seenFirst = record(firstSession, 2);
    const seenSecond = record(secondSession, 4);

    model.enqueue({ text: "answered by worker A" });
    await onA.sendAndWait({ prompt: "from A's app" });
    await Promise.all([seenFirst.ended[0]?.opened, seenSecond.ended[0]?.opened]);
    const stored = (await secondSession.getMessages()).slice(-TEXT_PROMPT_STORED.length);
    // As a local session's second app: A's prompt, its usage info, then the owner's idles.
    expect(seenFirst.seen.map((event) => event.type)).toEqual(TEXT_PROMPT);
    expect(seenSecond.seen).toEqual(seenFirst.seen);
    expect(persisted(seenFirst.seen)).toEqual(stored);

    // The first app's own prompt runs on A; both apps see it, the second as A's prompt.
    model.enqueue({ text: "answered for the first app" });
    const firstReply = await firstSession.sendAndWait({ prompt: "from the first app" });
    expect(firstReply?.data.content).toBe("answered for the first app");
    await seenSecond.ended[1]?.opened;
    expect(seenFirst.seen.map((event) => event.type)).toEqual([...TEXT_PROMPT, ...TEXT_PROMPT]);
    expect(seenSecond.seen).toEqual(seenFirst.seen);

    // The first app leaves: the second still hears A's next prompt, and its own runs on A.
    await first.stop();
    model.enqueue({ text: "A's second answer" });
    await onA.sendAndWait({ prompt: "A again" });
    await seenSecond.ended[2]?.opened;
    model.enqueue({ text: "answered for the second app" });
    const reply = await secondSession.sendAndWait({ prompt: "from the second app" });
    expect(reply?.data.content).toBe("answered for the second app");
    expect(seenSecond.seen.map((event) => event.type)).toEqual([
      ...TEXT_PROMPT,
      ...TEXT_PROMPT,
      ...TEXT_PROMPT,
      ...TEXT_PROMPT,
    ]);
    expect(seenSecond.seen.filter((event) => event.type === "assistant.message")).toMatchObject([
      { data: { content: "answered by worker A" } },
      { data: { content: "answered for the first app" } },
      { data: { content: "A's second answer" } },
      { data: { content: "answered for the second app" } },
    ]);
    // Each stored event once, in log order.
    const all = await secondSession.getMessages();
    const seenStored = persisted(seenSecond.seen);
    expect(seenStored).toEqual(all.slice(-seenStored.length));
    await second.stop();
  });
});
