/**
 * A follower's prompt still unread in the inbox when its owner dies (issue 22): worker A holds a
 * session and is frozen (SIGSTOP) so that it never takes what a client of worker B sends; B's
 * prompt waits in the inbox; A is killed with SIGKILL. B's owner watch withdraws the unread prompt
 * and tells its client to send again; B's next prompt claims the session and runs on B. The
 * withdrawn prompt must never run as well: "told dropped" and "ran" exclude each other.
 */

import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import {
  describeWorkers,
  QUICK_OWNER_CHECK,
  recordEvents,
  TEXT_PROMPT_STORED,
} from "./workers-support.js";

describeWorkers(
  "a follower's prompt unread when its owner dies",
  (workers) => {
    test("A frozen then killed with B's prompt in the inbox: told dropped once, never run; B's resend runs once", async () => {
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const onB = await workers.worker().resumeSession(onA.sessionId, {
        onPermissionRequest: approveAll,
      });
      const { seen, idle } = recordEvents(onB, 3);
      const before = await onB.getMessages();

      // A's lease is live for 10 s more: the prompt is stored for A, which never reads it.
      workerA.process.kill("SIGSTOP");
      await onB.send({ prompt: "sent while A froze" });
      workerA.process.kill("SIGKILL");
      await workerA.exited;
      await idle[0]?.opened;
      const message = `the worker running session ${onA.sessionId} stopped (its process is gone) before 1 prompt sent from this worker started; send again to run it here`;

      workers.fixture.model.enqueue({ text: "answered by worker B" });
      workers.fixture.model.enqueue({ text: "the marker's answer" });
      const resent = await onB.sendAndWait({ prompt: "sent while A froze" });
      expect(resent?.data.content).toBe("answered by worker B");
      // Queued behind anything B took at its claim: a withdrawn prompt run late would come first.
      const marker = await onB.sendAndWait({ prompt: "marker" });
      expect(marker?.data.content).toBe("the marker's answer");

      const stored = (await onB.getMessages()).slice(before.length);
      expect(stored.map((event) => event.type)).toEqual([
        "session.resume",
        ...TEXT_PROMPT_STORED,
        ...TEXT_PROMPT_STORED,
      ]);
      const prompts = stored.flatMap((event) =>
        event.type === "user.message" ? [event.data.content] : [],
      );
      expect(prompts).toEqual(["sent while A froze", "marker"]);
      // B's own error and idle, then what B's claim stored (its session.resume: every event of the
      // log reaches the client, whoever wrote it), then what B's session sent: the prompts, with deltas.
      const ranOnB = [
        "user.message",
        "assistant.turn_start",
        "assistant.message_delta",
        "session.usage_info",
        "assistant.usage",
        "assistant.message",
        "assistant.turn_end",
        "assistant.idle",
        "session.idle",
      ];
      expect(seen.map(({ type }) => type)).toEqual([
        "session.error",
        "assistant.idle",
        "session.idle",
        "session.resume",
        ...ranOnB,
        ...ranOnB,
      ]);
      expect(seen.slice(0, 3).map(({ type, data }) => ({ type, data }))).toEqual([
        { type: "session.error", data: { errorType: "server", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
    }, 90_000);
  },
  QUICK_OWNER_CHECK,
);
