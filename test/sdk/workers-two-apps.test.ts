/**
 * Two apps following one session of another worker (issue 22): both connect to worker B and
 * resume a session worker A holds. Each gets every stored event once, in log order, as a local
 * session's apps each get every event (server/session-clients.ts); one app leaving does not
 * silence the other, whose own prompts and permission answers keep working.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, type PermissionRequest, TurnloopClient } from "../../src/sdk/index.js";
import { type Gate, gate } from "../support/gate.js";
import { inLogOrder } from "./support.js";
import {
  ASKED_PROMPT,
  createCall,
  describeWorkers,
  TEXT_PROMPT,
  TEXT_PROMPT_STORED,
} from "./workers-support.js";

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

/**
 * The stored events among `events`, in log order: not the usage info and idles the server
 * derives, and each reply's usage put back after its `assistant.message` (the wire sends it
 * before, as Copilot does: server/usage-order.ts).
 */
const persisted = (events: readonly WireEvent[]) =>
  inLogOrder(events).filter((event) => !DERIVED.includes(event.type));
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

  test("both are asked A's permission question and the first answer counts; after the asker leaves, the other still answers", async () => {
    // A's app has no handler: A asks only for B's apps, which registered one each.
    const onA = await workers.worker().createSession({});
    const workerB = await workers.tcpWorker();
    const { cwd, model } = workers.fixture;
    const first = new TurnloopClient({ port: workerB.port, cwd });
    const second = new TurnloopClient({ port: workerB.port, cwd });
    const askedFirst: PermissionRequest[] = [];
    const askedSecond: PermissionRequest[] = [];
    const ran = gate();
    const firstSession = await first.resumeSession(onA.sessionId, {
      onPermissionRequest: (request) => {
        askedFirst.push(request);
        return { kind: "approve-once" };
      },
    });
    const secondSession = await second.resumeSession(onA.sessionId, {
      // Its first answer comes once the tool ran on the first app's: a late one, ignored.
      onPermissionRequest: async (request) => {
        askedSecond.push(request);
        if (askedSecond.length === 1) {
          await ran.opened;
          return { kind: "reject" };
        }
        return { kind: "approve-once" };
      },
    });
    const seenFirst = record(firstSession, 1);
    const seenSecond = record(secondSession, 2);
    secondSession.on((event) => {
      if (event.type === "tool.execution_complete") {
        ran.open();
      }
    });

    model.enqueue(createCall("call_1", "one.txt"), { text: "Created one." });
    const reply = await firstSession.sendAndWait({ prompt: "create one.txt" });
    expect(reply?.data.content).toBe("Created one.");
    await seenSecond.ended[0]?.opened;
    expect(seenFirst.seen.map((event) => event.type)).toEqual(ASKED_PROMPT);
    expect(seenSecond.seen).toEqual(seenFirst.seen);
    expect(await readFile(join(cwd, "one.txt"), "utf8")).toBe("hi");

    await first.stop();
    model.enqueue(createCall("call_2", "two.txt"), { text: "Created two." });
    const secondReply = await secondSession.sendAndWait({ prompt: "create two.txt" });
    expect(secondReply?.data.content).toBe("Created two.");
    expect(await readFile(join(cwd, "two.txt"), "utf8")).toBe("hi");
    expect(askedFirst.map((request) => request.fileName)).toEqual([join(cwd, "one.txt")]);
    expect(askedSecond.map((request) => request.fileName)).toEqual([
      join(cwd, "one.txt"),
      join(cwd, "two.txt"),
    ]);
    const decisions = seenSecond.seen.flatMap((event) =>
      event.type === "permission.completed" ? [event.data] : [],
    );
    expect(decisions).toEqual([
      expect.objectContaining({ toolCallId: "call_1", decision: "allowed", scope: "once" }),
      expect.objectContaining({ toolCallId: "call_2", decision: "allowed", scope: "once" }),
    ]);
    expect(seenSecond.seen.map((event) => event.type)).toEqual([...ASKED_PROMPT, ...ASKED_PROMPT]);
    await second.stop();
  });
});
