/**
 * A follower's prompt unread when its owner's lease lapses while its process lives on (issue 22):
 * worker A holds a session and is frozen (SIGSTOP), never killed, so that it neither takes what a
 * client of worker B sends nor renews its lease; B's prompt waits in the inbox. Once A's lease
 * lapses (10 s after its last heartbeat; 2 s here, the workers' lease set by the test-only
 * `TURNLOOP_TEST_LEASE_MS`, so the wait is shorter), B's owner watch withdraws the prompt and
 * tells its client that A let its lease lapse, not that A's process ended (B cannot know: A
 * lives, frozen); B's next prompt claims the session and runs on B.
 */

import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { TEST_LEASE_VARIABLE } from "../../src/session/postgres/lease.js";
import { describeWorkers, QUICK_OWNER_CHECK, recordEvents } from "./workers-support.js";

describeWorkers(
  "a follower's prompt unread when its owner's lease lapses",
  (workers) => {
    test("A frozen with B's prompt in the inbox: B is told A let its lease lapse; B's resend runs on B", async () => {
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const { seen, idle } = recordEvents(onB, 2);

      workerA.process.kill("SIGSTOP");
      try {
        await onB.send({ prompt: "sent while A froze" });
        await idle[0]?.opened;
      } finally {
        workerA.process.kill("SIGCONT");
      }
      const message = `the worker running session ${onA.sessionId} let its lease lapse (not renewed in time) before 1 prompt sent from this worker started; send again to run it here`;
      expect(seen.map(({ type, data }) => ({ type, data }))).toEqual([
        { type: "session.error", data: { errorType: "server", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);

      workers.fixture.model.enqueue({ text: "answered by worker B" });
      const resent = await onB.sendAndWait({ prompt: "sent while A froze" });
      expect(resent?.data.content).toBe("answered by worker B");
      expect(seen.slice(3, 4).map(({ type }) => type)).toEqual(["session.resume"]);
    }, 90_000);
  },
  { [TEST_LEASE_VARIABLE]: "2000", ...QUICK_OWNER_CHECK },
);
