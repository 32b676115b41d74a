/**
 * The events a worker stores when it claims a session reach its following client like every
 * other event (a trial, round 3 session 21): a client of worker B sent a slow `bash` call that
 * ran on worker A, A was killed mid-tool, and B's next prompt claimed the session. The log read
 * `session.resume`, the interrupted call's `tool.execution_complete`, `user.message`; B's client
 * got `user.message`, then `session.resume`, and never that result. Every event of the log
 * reaches the client once, in log order, whoever wrote it. Real server processes on a real
 * PostgreSQL, the fake model; the whole stream compared with the log.
 */

import { join } from "node:path";
import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { whenFileExists } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { inLogOrder } from "./support.js";
import { describeWorkers, recordEvents } from "./workers-support.js";

describeWorkers("a session claimed after its owner died mid-tool", (workers) => {
  test("the follower's client gets every event of the log once, in order: the claim's too", async () => {
    const { fixture } = workers;
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { session: onB } = await workers.followerSession(onA.sessionId);
    const before = (await onB.getMessages()).length;
    const { seen } = recordEvents(onB, 2);

    const started = join(fixture.cwd, "slow-started.txt");
    const command = `touch ${started} && sleep 30`;
    fixture.model.enqueue(callingTools(["slow-1", "bash", { command }]));
    const running = gate();
    whenFileExists(started, workerA.process, () => running.open());
    const sent = onB.sendAndWait({ prompt: "slow via B" }).then(
      () => "answered",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    await running.opened;
    workerA.process.kill("SIGKILL");
    await workerA.exited;
    expect(await sent).toBe(
      `the worker running session ${onA.sessionId} stopped (its process is gone) while running a prompt sent from this worker: it ended there unfinished`,
    );

    fixture.model.enqueue({ text: "answered on B" });
    const resent = await onB.sendAndWait({ prompt: "resend on B" });
    expect(resent?.data.content).toBe("answered on B");

    const stored = (await onB.getMessages()).slice(before);
    const claimed = stored.findIndex((event) => event.type === "session.resume");
    expect(stored.slice(claimed, claimed + 4).map((event) => event.type)).toEqual([
      "session.resume",
      "tool.execution_complete",
      "assistant.turn_end",
      "user.message",
    ]);
    // Each stored event once, in the log's order (B's own error and idles, and the deltas and
    // usage info of the prompt run on B, are not stored).
    const storedIds = new Set(stored.map((event) => event.id));
    // A live question and its answer carry what Copilot SDK apps read; the log has them not.
    const asStored = (event: WireEvent) => {
      const { permissionRequest, result, ...data } = event.data as Record<string, unknown>;
      if (event.type === "permission.requested") {
        expect(permissionRequest).toMatchObject({ toolCallId: "slow-1", command });
        return { ...event, data };
      }
      if (event.type === "permission.completed") {
        expect(result).toEqual({ kind: "approved" });
        return { ...event, data };
      }
      return event;
    };
    // In log order: the wire sends a reply's usage before its message, as Copilot does
    // (server/usage-order.ts).
    expect(
      inLogOrder(seen)
        .filter((event) => storedIds.has(event.id))
        .map(asStored),
    ).toEqual(stored);
  }, 120_000);
});
