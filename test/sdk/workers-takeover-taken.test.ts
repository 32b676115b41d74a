/**
 * A follower's prompt its owner took but never started when the owner dies and another worker
 * claims the session (issue 22): worker A runs a prompt of its own client, held at the model; a
 * client of worker C sends a prompt, which A takes from the inbox (the row is deleted) and queues
 * behind the running one; C is frozen while A is killed and worker B's own client claims the
 * session and runs a prompt. Nothing is left to withdraw, and B is live, yet C's prompt can never
 * run (only A's lease took it): once C wakes, its client is told so once, and the resend runs on B
 * once.
 */

import { expect, test } from "vitest";
import { PROMPT_INTERRUPTED } from "../../src/session/prompt-end.js";
import {
  describeWorkers,
  holdAnswers,
  inboxPromptsTaken,
  liveEventSent,
  recordEvents,
  resendThenMarker,
  seenOf,
  TEXT_PROMPT,
  TEXT_PROMPT_STORED,
} from "./workers-support.js";

describeWorkers("a follower's prompt taken by an owner that died before starting it", (workers) => {
  test("A takes C's prompt behind a held one and is killed, B claims: C told dropped once, C's resend runs once on B", async () => {
    const { fixture, env } = workers;
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { worker: workerC, session: onC } = await workers.followerSession(onA.sessionId);
    const seenOnC = recordEvents(onC, 3);
    const before = await onC.getMessages();

    // A runs its own client's prompt, held at the model; C's prompt is taken and queued behind,
    // which A tells its apps, C's too (pending_messages.modified: A dies only once it was sent).
    const queued = await liveEventSent(
      env.TURNLOOP_DATABASE_URL ?? "",
      "pending_messages.modified",
    );
    const requested = holdAnswers(fixture.model);
    await onA.send({ prompt: "held on A" });
    await requested.opened;
    await onC.send({ prompt: "sent by C, taken by A" });
    await inboxPromptsTaken(env.TURNLOOP_DATABASE_URL ?? "");
    await queued.sent;
    await queued.end();
    workerC.process.kill("SIGSTOP");
    workerA.process.kill("SIGKILL");
    await workerA.exited;

    // B's own client claims the session (a new epoch) and runs a prompt while C sleeps.
    fixture.model.setResponder(undefined);
    await workers.claimAndRun(onA.sessionId);

    workerC.process.kill("SIGCONT");
    await seenOnC.idle[0]?.opened;
    await resendThenMarker(onC, fixture.model, "sent by C, taken by A");

    const stored = (await onC.getMessages()).slice(before.length);
    // What A committed of its held prompt before it died, then B's takeover and three prompts.
    const resumeAt = stored.findIndex(({ type }) => type === "session.resume");
    const heldOnA = stored.slice(0, resumeAt);
    expect(
      stored
        .slice(resumeAt)
        .flatMap((event) => (event.type === "user.message" ? [event.data.content] : [])),
    ).toEqual(["sent by B", "sent by C, taken by A", "marker"]);

    const message = `another worker took session ${onA.sessionId} over before 1 prompt sent from this worker started; send again to run it`;
    // What A and B stored (B closing the turn A's held request opened, which ends A's prompt as
    // a failure: its error, no idle while C's prompt waits), then C's error and idle (once), then
    // C's two prompts as B ran them.
    expect(seenOnC.seen.map(({ type }) => type)).toEqual([
      ...heldOnA.map(({ type }) => type),
      "pending_messages.modified",
      "session.resume",
      "assistant.turn_end",
      "session.error",
      ...seenOf(TEXT_PROMPT_STORED),
      "session.error",
      "assistant.idle",
      "session.idle",
      ...TEXT_PROMPT,
      ...TEXT_PROMPT,
    ]);
    expect(seenOnC.seen[heldOnA.length + 3]?.data).toEqual(PROMPT_INTERRUPTED);
    // After A's stored events: B's session.resume, the turn_end closing A's and its error, then
    // B's prompt.
    const errorAt = heldOnA.length + 4 + seenOf(TEXT_PROMPT_STORED).length;
    expect(
      seenOnC.seen.slice(errorAt, errorAt + 3).map(({ type, data }) => ({ type, data })),
    ).toEqual([
      { type: "session.error", data: { errorType: "server", message } },
      { type: "assistant.idle", data: {} },
      { type: "session.idle", data: { mode: "interactive" } },
    ]);
  }, 90_000);
});
