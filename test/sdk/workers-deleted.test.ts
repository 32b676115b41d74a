/**
 * A session another worker holds deleted by its owner's app while an app of worker B follows it
 * (issue 22): B's app's next send says the session was deleted, with its id, as a local session's
 * other app is told (deleted-by-another-app.test.ts), not that it could not be opened. Real server
 * processes on a real PostgreSQL.
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
    await deleting.stop();
  });
});
