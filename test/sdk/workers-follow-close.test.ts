/**
 * The store subscription a worker holds for the apps following a session another worker owns
 * (issue 22, server/remote-followers.ts) ends with the last app that follows it, whether it
 * disconnects or ends its use of the session (`session.detach`, the SDK's `disconnect`;
 * `session.destroy` is the same method); an app following later gets a fresh one, which hears the
 * owner's next prompt. Seen from PostgreSQL: worker B's `LISTEN` connection (its
 * `application_name` tells it from A's) is there while an app follows and gone after.
 */

import { expect, test, vi } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { startTcpServer } from "./tcp-server.js";
import { describeWorkers, recordEvents, TEXT_PROMPT } from "./workers-support.js";

const WORKER_B = "turnloop_worker_b";

describeWorkers("the following of a remote session when its last app leaves", (workers) => {
  test("B's subscription ends when the last app disconnects and when it detaches; a later app gets a new one", async () => {
    const { fixture, env } = workers;
    const { session: onA } = await workers.ownerSession();
    const url = `${env.TURNLOOP_DATABASE_URL}?application_name=${WORKER_B}`;
    const workerB = await startTcpServer(fixture, { ...env, TURNLOOP_DATABASE_URL: url });
    fixture.onClose(() => workerB.stop());
    const { default: pg } = await import("pg");
    const database = new pg.Client({ connectionString: env.TURNLOOP_DATABASE_URL });
    await database.connect();
    /** Resolves once worker B has `count` connections listening (a condition, queried); `when` names the step. */
    const listening = (count: number, when: string) =>
      vi.waitFor(
        async () => {
          const { rows } = await database.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM pg_stat_activity
             WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
            [WORKER_B],
          );
          expect(rows[0]?.count, when).toBe(count);
        },
        { timeout: 30_000, interval: 50 },
      );
    try {
      const first = new TurnloopClient({ port: workerB.port, cwd: fixture.cwd });
      await first.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
      await listening(1, "the first app following");
      await first.stop();
      await listening(0, "after the first app disconnected");

      const second = new TurnloopClient({ port: workerB.port, cwd: fixture.cwd });
      const followed = await second.resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      await listening(1, "the second app following");
      const { seen, idle } = recordEvents(followed, 1);
      fixture.model.enqueue({ text: "answered by worker A" });
      await onA.sendAndWait({ prompt: "from A's app" });
      await idle[0]?.opened;
      expect(seen.map((event) => event.type)).toEqual(TEXT_PROMPT);

      await followed.disconnect();
      await listening(0, "after the second app's session.detach");
      await second.stop();
    } finally {
      await database.end();
    }
  });
});
