/**
 * A follower's prompt its owner took but never started when the owner dies and another worker
 * claims the session (issue 22): worker A runs a prompt of its own client, held at the model; a
 * client of worker C sends a prompt, which A takes from the inbox (the row is deleted) and queues
 * behind the running one; C is frozen while A is killed and worker B's own client claims the
 * session and runs a prompt. Nothing is left to withdraw, and B is live, yet C's prompt can never
 * run (only A's lease took it): once C wakes, its client is told so once, and the resend runs on B
 * once.
 */

import { describe, expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { startTcpServer } from "./tcp-server.js";
import {
  holdAnswers,
  inboxPromptsTaken,
  recordEvents,
  TEXT_PROMPT,
  useWorkers,
} from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "a follower's prompt taken by an owner that died before starting it",
  () => {
    const workers = useWorkers();

    test("A takes C's prompt behind a held one and is killed, B claims: C told dropped once, C's resend runs once on B", async () => {
      const { fixture, env } = workers;
      const workerA = await startTcpServer(fixture, env);
      fixture.onClose(() => workerA.stop());
      const workerC = await startTcpServer(fixture, env);
      fixture.onClose(() => workerC.stop());
      const clientA = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
      const onA = await clientA.createSession({ onPermissionRequest: approveAll });
      const clientC = new TurnloopClient({ port: workerC.port, cwd: fixture.cwd });
      const onC = await clientC.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
      const seenOnC = recordEvents(onC, 3);
      const before = await onC.getMessages();

      // A runs its own client's prompt, held at the model; C's prompt is taken and queued behind.
      const requested = holdAnswers(fixture.model);
      await onA.send({ prompt: "held on A" });
      await requested.opened;
      await onC.send({ prompt: "sent by C, taken by A" });
      await inboxPromptsTaken(env.TURNLOOP_DATABASE_URL ?? "");
      workerC.process.kill("SIGSTOP");
      workerA.process.kill("SIGKILL");
      await workerA.exited;

      // B's own client claims the session (a new epoch) and runs a prompt while C sleeps.
      fixture.model.setResponder(undefined);
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      fixture.model.enqueue({ text: "answered for B" });
      const answeredB = await onB.sendAndWait({ prompt: "sent by B" });
      expect(answeredB?.data.content).toBe("answered for B");

      workerC.process.kill("SIGCONT");
      await seenOnC.idle[0]?.opened;
      fixture.model.enqueue({ text: "answered for C" });
      const resent = await onC.sendAndWait({ prompt: "sent by C, taken by A" });
      expect(resent?.data.content).toBe("answered for C");
      // Queued behind anything B took: C's first prompt run late would come before it.
      fixture.model.enqueue({ text: "the marker's answer" });
      const marker = await onC.sendAndWait({ prompt: "marker" });
      expect(marker?.data.content).toBe("the marker's answer");

      const stored = (await onC.getMessages()).slice(before.length);
      // What A committed of its held prompt before it died, then B's takeover and three prompts.
      const resumeAt = stored.findIndex(({ type }) => type === "session.resume");
      const heldOnA = stored.slice(0, resumeAt);
      expect(
        stored
          .slice(resumeAt)
          .flatMap((event) => (event.type === "user.message" ? [event.data.content] : [])),
      ).toEqual(["sent by B", "sent by C, taken by A", "marker"]);

      const message = `the worker running session ${onA.sessionId} stopped (its lease lapsed) before 1 prompt(s) sent from this worker started; send again to run them here`;
      // What A and B stored, then C's error and idle (once), then C's two prompts as B ran them.
      expect(seenOnC.seen.map(({ type }) => type)).toEqual([
        ...heldOnA.map(({ type }) => type),
        "session.resume",
        ...TEXT_PROMPT.slice(0, -1),
        "session.error",
        "session.idle",
        ...TEXT_PROMPT,
        ...TEXT_PROMPT,
      ]);
      const errorAt = heldOnA.length + 1 + TEXT_PROMPT.length - 1;
      expect(
        seenOnC.seen.slice(errorAt, errorAt + 2).map(({ type, data }) => ({ type, data })),
      ).toEqual([
        { type: "session.error", data: { errorType: "server", message } },
        { type: "session.idle", data: {} },
      ]);
    }, 90_000);
  },
);
