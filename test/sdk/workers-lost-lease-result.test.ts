/**
 * The session-36 trial (P4-2): worker A runs a command for its own client and is frozen (SIGSTOP)
 * past its lease (2 s here, the test-only `TURNLOOP_TEST_LEASE_MS`); worker B's client claims the
 * session, and B stores the open call's interrupted result. Once A wakes (SIGCONT) it finds its
 * lease lost and kills the command; the result it could not append must not reach A's client,
 * since the log holds B's result for the same call: A's client is told only that the lease was
 * lost, then idle.
 */

import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { TEST_LEASE_VARIABLE } from "../../src/session/postgres/lease.js";
import { gate } from "../support/gate.js";
import { describeWorkers, QUICK_OWNER_CHECK, recordEvents } from "./workers-support.js";

describeWorkers(
  "a worker that lost its lease during a command",
  (workers) => {
    test("A frozen past its lease mid-command, B claims: A's client gets no result the log does not hold", async () => {
      const { fixture } = workers;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const started = gate();
      const seenOnA = recordEvents(onA, 1);
      onA.on((event) => {
        // The command runs (its first output), so A committed everything before it started.
        if (event.type === "tool.execution_partial_result") {
          started.open();
        }
      });
      fixture.model.enqueue({
        toolCalls: [
          { id: "call_1", name: "bash", arguments: '{"command":"echo tick; sleep 120"}' },
        ],
      });
      await onA.send({ prompt: "run it on A" });
      await started.opened;

      workerA.process.kill("SIGSTOP");
      let stored: Awaited<ReturnType<typeof onA.getMessages>>;
      try {
        // B's first send waits for A's lease to lapse and is withdrawn (workers-lease-lapsed);
        // the resend claims the session, storing the interrupted result of A's open call.
        const onB = await workers.worker().resumeSession(onA.sessionId, {
          onPermissionRequest: approveAll,
        });
        const onBIdle = recordEvents(onB, 1);
        await onB.send({ prompt: "sent while A froze" });
        await onBIdle.idle[0]?.opened;
        fixture.model.enqueue({ text: "answered by worker B" });
        const resent = await onB.sendAndWait({ prompt: "sent while A froze" });
        expect(resent?.data.content).toBe("answered by worker B");
        stored = await onB.getMessages();
      } finally {
        workerA.process.kill("SIGCONT");
      }
      await seenOnA.idle[0]?.opened;

      const storedResults = stored.filter((event) => event.type === "tool.execution_complete");
      expect(storedResults.map(({ data }) => data.toolCallId)).toEqual(["call_1"]);
      // After the command's output, A's client is told the lease's loss and idle: no result of
      // its own for call_1, which the log holds as B's interrupted one.
      const outputAt = seenOnA.seen.findIndex(
        ({ type }) => type === "tool.execution_partial_result",
      );
      const afterOutput = seenOnA.seen.slice(outputAt + 1);
      expect(afterOutput.map(({ type }) => type)).toEqual([
        "session.error",
        "assistant.idle",
        "session.idle",
      ]);
      expect(afterOutput[0]?.data).toEqual({
        errorType: "storage",
        message: expect.stringContaining(
          `the writer lease of session ${onA.sessionId} was lost: another worker took the session over`,
        ),
      });
      // Everything else A's client saw is in the log.
      const storedIds = new Set(stored.map((event) => event.id));
      const before = seenOnA.seen.slice(0, outputAt).filter((event) => event.ephemeral !== true);
      expect(before.filter((event) => !storedIds.has(event.id))).toEqual([]);
    }, 120_000);
  },
  { [TEST_LEASE_VARIABLE]: "2000", ...QUICK_OWNER_CHECK },
);
