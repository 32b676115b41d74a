/**
 * A follower's prompt queued on a worker that dies (issue 22): worker A holds a session and runs
 * its own client's prompt; a client of worker B sends a prompt, which waits in A's queue; A is
 * killed with SIGKILL. Once B sees A's process gone (same machine, at its next lease check), B's
 * `sendAndWait` ends with an error saying so
 * (not at its timeout), and B's next prompt claims the session and runs on B.
 *
 * A's `pending_messages.modified` (B's prompt queued) is ephemeral: A's clients get it, and B
 * through `NOTIFY turnloop_live`, sent on its own. The test killed A once its own client had it:
 * whether B had it too depended on A's notification going out first (under load it did, and B
 * saw one event more: bench/notes/flaky44.md). A is killed once B got it.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import {
  describeWorkers,
  holdAnswers,
  QUICK_OWNER_CHECK,
  TEXT_PROMPT_STORED,
} from "./workers-support.js";

describeWorkers(
  "a follower's prompt on a worker that dies",
  (workers) => {
    test("A killed with B's prompt queued: B's wait ends with an error, B's next prompt runs on B", async () => {
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const queuedOnA = gate();
      onA.on((event) => {
        if (event.type === "pending_messages.modified") {
          queuedOnA.open();
        }
      });
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const seenOnB: WireEvent[] = [];
      const idleOnB = gate();
      const queuedSeenOnB = gate();
      onB.on((event) => {
        seenOnB.push(event);
        if (event.type === "session.idle") {
          idleOnB.open();
        }
        if (event.type === "pending_messages.modified") {
          queuedSeenOnB.open();
        }
      });
      const before = await onB.getMessages();
      const requested = holdAnswers(workers.fixture.model);
      await onA.send({ prompt: "A's long prompt" });
      await requested.opened;
      // The default timeout (60 s): only B noticing A's lapsed lease ends this wait in time.
      const waited = onB.sendAndWait({ prompt: "queued behind A's" }).then(
        () => "answered",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      await queuedOnA.opened;
      await queuedSeenOnB.opened;
      workerA.process.kill("SIGKILL");
      await workerA.exited;
      const message = `the worker running session ${onA.sessionId} stopped (its process is gone) before 1 prompt sent from this worker started; send again to run it here`;
      expect(await waited).toBe(message);
      // sendAndWait rejects at the session.error; the idle follows it.
      await idleOnB.opened;
      workers.fixture.model.setResponder(undefined);

      // What A stored before it died reached B once, in order, then A's live queue change; then
      // B's own error (and idle).
      const storedByA = (await onB.getMessages()).slice(before.length);
      expect(seenOnB.slice(0, storedByA.length)).toEqual(storedByA);
      expect(seenOnB.slice(storedByA.length).map(({ type, data }) => ({ type, data }))).toEqual([
        { type: "pending_messages.modified", data: {} },
        { type: "session.error", data: { errorType: "server", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
      expect(storedByA.map((event) => event.data)).not.toContainEqual(
        expect.objectContaining({ content: "queued behind A's" }),
      );

      workers.fixture.model.enqueue({ text: "answered by worker B" });
      const reply = await onB.sendAndWait({ prompt: "queued behind A's" });
      expect(reply?.data.content).toBe("answered by worker B");
      const after = (await onB.getMessages()).slice(before.length + storedByA.length);
      // B claimed the session (its session.resume), closed the turn A's request had opened (A's
      // assistant.turn_start is stored as its request goes out), then ran the prompt; no idle is
      // stored.
      expect(after.map((event) => event.type)).toEqual([
        "session.resume",
        "assistant.turn_end",
        ...TEXT_PROMPT_STORED,
      ]);
    }, 90_000);
  },
  QUICK_OWNER_CHECK,
);
