/**
 * An app that only follows a session another worker holds is told when that holder dies (issue
 * 22; session/followed-leases.ts, server/remote-holder-gone.ts): worker A runs a prompt of its own
 * client, held open by the model; a client of worker B resumed the session and sent nothing. A is
 * killed with SIGKILL once B saw the prompt's turn start. Before, B saw the turn start and then
 * nothing until some worker reopened the session; now B's next lease check fences A's lease and B
 * is told, once, that A stopped while running a prompt, then idle. When the session was idle,
 * nothing is said, and B's next prompt claims the session. Real server processes on a real
 * PostgreSQL.
 */

import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { queryUntil } from "../support/postgres.js";
import {
  describeWorkers,
  holdAnswers,
  QUICK_OWNER_CHECK,
  recordEvents,
  TEXT_PROMPT,
} from "./workers-support.js";

/** What B's app sees of a text prompt B runs itself: the stream's delta too. */
const RAN_ON_B = [...TEXT_PROMPT.slice(0, 2), "assistant.message_delta", ...TEXT_PROMPT.slice(2)];

/** Resolves once nobody holds `sessionId`'s lease in `url`'s database (a follower fenced it). */
function leaseReleased(url: string, sessionId: string): Promise<void> {
  const sql = "SELECT owner_id FROM sessions WHERE id = $1";
  return queryUntil(url, sql, [sessionId], (rows) => expect(rows).toEqual([{ owner_id: null }]));
}

describeWorkers(
  "an app only following a session whose holder dies",
  (workers) => {
    test("A killed while running its own client's prompt: B's app is told once, then idle; B's prompt claims the session", async () => {
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const { seen, idle } = recordEvents(onB, 2);
      const turnSeenOnB = gate();
      onB.on((event) => {
        if (event.type === "assistant.turn_start") {
          turnSeenOnB.open();
        }
      });
      const requested = holdAnswers(workers.fixture.model);
      await onA.send({ prompt: "A's long prompt" });
      await requested.opened;
      await turnSeenOnB.opened;
      workerA.process.kill("SIGKILL");
      await workerA.exited;
      await idle[0]?.opened;
      workers.fixture.model.setResponder(undefined);

      const message = `the worker running session ${onA.sessionId} stopped (its process is gone) while running a prompt: it ended there unfinished`;
      expect(seen.map(({ type, data }) => ({ type, data }))).toEqual([
        {
          type: "user.message",
          data: expect.objectContaining({ content: "A's long prompt", source: "user" }),
        },
        { type: "assistant.turn_start", data: expect.objectContaining({}) },
        { type: "session.error", data: { errorType: "server", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);

      workers.fixture.model.enqueue({ text: "answered by worker B" });
      const reply = await onB.sendAndWait({ prompt: "sent by B" });
      expect(reply?.data.content).toBe("answered by worker B");
      // B's claim closed A's open turn; its interrupted end is not told again.
      expect(seen.slice(5).map(({ type }) => type)).toEqual([
        "session.resume",
        "assistant.turn_end",
        ...RAN_ON_B,
      ]);
    }, 90_000);

    test("A killed while the session is idle: B's app is told nothing; B fences A's lease and its prompt claims the session", async () => {
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const { seen } = recordEvents(onB, 1);
      workerA.process.kill("SIGKILL");
      await workerA.exited;
      await leaseReleased(workers.env.TURNLOOP_DATABASE_URL ?? "", onA.sessionId);

      workers.fixture.model.enqueue({ text: "answered by worker B" });
      const reply = await onB.sendAndWait({ prompt: "sent by B" });
      expect(reply?.data.content).toBe("answered by worker B");
      expect(seen.map(({ type }) => type)).toEqual(["session.resume", ...RAN_ON_B]);
    }, 90_000);
  },
  QUICK_OWNER_CHECK,
);
