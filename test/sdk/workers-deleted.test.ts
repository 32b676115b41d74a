/**
 * A session deleted by an app (`session.delete`): every later method naming it says so in the
 * words a send says (`Session not found: <id> (it was deleted: session.delete)`), on the server
 * that deleted it and, when another worker held it (issue 22), from an app following it there:
 * its next send, or its getMessages, finds it deleted (it was followed, so it existed), not that
 * it could not be opened or that there is "no session". Real server processes on a real
 * PostgreSQL.
 */

import { expect, test } from "vitest";
import { TurnloopClient } from "../../src/sdk/index.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("a followed session deleted by its owner's app", (workers) => {
  test("the follower's next send says it was deleted, with the session id", async () => {
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { session: onB } = await workers.followerSession(onA.sessionId);
    const deleting = new TurnloopClient({ port: workerA.port, cwd: workers.fixture.cwd });
    await deleting.deleteSession(onA.sessionId);
    const deleted = `Session not found: ${onA.sessionId} (it was deleted: session.delete)`;
    await expect(onB.send({ prompt: "still there?" })).rejects.toThrow(deleted);
    // It follows the session no more; a later send says the same.
    await expect(onB.send({ prompt: "and now?" })).rejects.toThrow(deleted);
    await expect(onB.getMessages()).rejects.toThrow(deleted);
    await deleting.stop();
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
