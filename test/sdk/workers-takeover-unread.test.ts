/**
 * A follower's prompt unread when its owner dies and another worker claims the session before the
 * follower checks the lease (issue 22): worker A holds a session; a client of worker C sends a
 * prompt while A is frozen (SIGSTOP), so it waits in the inbox addressed to A's lease; C is frozen
 * too, so that its owner watch sees nothing while A is killed and worker B's own client claims the
 * session and runs a prompt there. When C wakes, a live worker (B) holds the lease, with another
 * epoch: C's prompt will never be taken, and C's client is told so once (on reading B's
 * `session.resume`, or at C's next lease check), without fencing B; C's resend then runs on B once.
 */

import { expect, test } from "vitest";
import {
  describeWorkers,
  recordEvents,
  resendThenMarker,
  seenOf,
  TEXT_PROMPT,
  TEXT_PROMPT_STORED,
} from "./workers-support.js";

describeWorkers(
  "a follower's unread prompt when another worker claims the session first",
  (workers) => {
    test("A frozen then killed with C's prompt unread, B claims: C told dropped once, B not fenced, C's resend runs once", async () => {
      const { fixture } = workers;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const { worker: workerC, session: onC } = await workers.followerSession(onA.sessionId);
      const seenOnC = recordEvents(onC, 3);
      const before = await onC.getMessages();

      // A's lease is live: the prompt is stored for A's epoch, and A never reads it.
      workerA.process.kill("SIGSTOP");
      await onC.send({ prompt: "sent by C while A froze" });
      workerC.process.kill("SIGSTOP");
      workerA.process.kill("SIGKILL");
      await workerA.exited;

      // B's own client claims the session (a new epoch) and runs a prompt while C sleeps.
      await workers.claimAndRun(onA.sessionId);

      workerC.process.kill("SIGCONT");
      await seenOnC.idle[0]?.opened;
      await resendThenMarker(onC, fixture.model, "sent by C while A froze");

      const stored = (await onC.getMessages()).slice(before.length);
      expect(stored.map((event) => event.type)).toEqual([
        "session.resume",
        ...TEXT_PROMPT_STORED,
        ...TEXT_PROMPT_STORED,
        ...TEXT_PROMPT_STORED,
      ]);
      expect(
        stored.flatMap((event) => (event.type === "user.message" ? [event.data.content] : [])),
      ).toEqual(["sent by B", "sent by C while A froze", "marker"]);

      const message = `another worker took session ${onA.sessionId} over before 1 prompt sent from this worker started; send again to run it`;
      // What B stored, then C's error and idle (once), then C's two prompts as B ran them.
      const ranOnB = seenOf(TEXT_PROMPT_STORED);
      expect(seenOnC.seen.map(({ type }) => type)).toEqual([
        "session.resume",
        ...ranOnB,
        "session.error",
        "assistant.idle",
        "session.idle",
        ...TEXT_PROMPT,
        ...TEXT_PROMPT,
      ]);
      expect(
        seenOnC.seen
          .slice(1 + ranOnB.length, 4 + ranOnB.length)
          .map(({ type, data }) => ({ type, data })),
      ).toEqual([
        { type: "session.error", data: { errorType: "server", message } },
        { type: "assistant.idle", data: {} },
        { type: "session.idle", data: { mode: "interactive" } },
      ]);
    }, 90_000);
  },
);
