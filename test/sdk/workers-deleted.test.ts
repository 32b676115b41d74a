/**
 * A session deleted by an app (`session.delete`): every later method naming it says so in the
 * words a send says (`Session not found: <id> (it was deleted: session.delete)`), on the server
 * that deleted it and, when another worker held it (issue 22), from an app following it there:
 * its next send, or its getMessages, finds it deleted (it was followed, so it existed), not that
 * it could not be opened or that there is "no session"; and it is told at once, as the deleting
 * server's apps are: `session.lifecycle` `session.deleted` (Copilot SDK's), through the channel
 * of the owner's live events (session/live-events.ts). Real server processes on a real PostgreSQL.
 */

import { expect, test } from "vitest";
import type { SessionLifecycleNotification } from "../../src/protocol/copilot.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("a followed session deleted by its owner's app", (workers) => {
  test("every follower is told at once (session.lifecycle session.deleted), then its send says it was deleted", async () => {
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { sessionId } = onA;
    const workerB = await workers.tcpWorker();
    // Two apps following it on B: one subscription there, each app told.
    const followers = await Promise.all(
      [1, 2].map(async () => {
        const client = new TurnloopClient({ port: workerB.port, cwd: workers.fixture.cwd });
        const session = await client.resumeSession(sessionId, { onPermissionRequest: approveAll });
        const lifecycle: SessionLifecycleNotification[] = [];
        const told = gate();
        client.onLifecycle((event) => {
          lifecycle.push(event);
          told.open();
        });
        return { client, session, lifecycle, told };
      }),
    );
    const deleting = new TurnloopClient({ port: workerA.port, cwd: workers.fixture.cwd });
    await deleting.deleteSession(sessionId);
    // Before: a follower learnt it at its next call only.
    await Promise.all(followers.map(({ told }) => told.opened));
    const deleted = `Session not found: ${sessionId} (it was deleted: session.delete)`;
    for (const { session, lifecycle } of followers) {
      expect(lifecycle).toEqual([{ type: "session.deleted", sessionId }]);
      await expect(session.send({ prompt: "still there?" })).rejects.toThrow(deleted);
      await expect(session.send({ prompt: "and now?" })).rejects.toThrow(deleted);
      await expect(session.getMessages()).rejects.toThrow(deleted);
    }
    await Promise.all([deleting, ...followers.map(({ client }) => client)].map((c) => c.stop()));
  });

  test("every method naming it says so: on the deleting server, and first from a follower's getMessages", async () => {
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { session: onB } = await workers.followerSession(onA.sessionId);
    const deleting = new TurnloopClient({ port: workerA.port, cwd: workers.fixture.cwd });
    await deleting.deleteSession(onA.sessionId);
    const deleted = `Session not found: ${onA.sessionId} (it was deleted: session.delete)`;
    // The owner's own app, whose session another app deleted: reading, its mode, and again.
    await expect(onA.getMessages()).rejects.toThrow(deleted);
    await expect(onA.getMode()).rejects.toThrow(deleted);
    await expect(deleting.resumeSession(onA.sessionId)).rejects.toThrow(deleted);
    await expect(deleting.deleteSession(onA.sessionId)).rejects.toThrow(deleted);
    // The follower's first method after the delete reads the log: deleted, then every method.
    await expect(onB.getMessages()).rejects.toThrow(deleted);
    await expect(onB.getMode()).rejects.toThrow(deleted);
    await expect(onB.send({ prompt: "still there?" })).rejects.toThrow(deleted);
    await deleting.stop();
  });
});
