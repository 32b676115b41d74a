/**
 * An abort by one app while other apps' prompts wait in the session's queue: a second app on the
 * owner's worker (a local session's app) and an app following from worker B (its prompt queued
 * at A through the inbox) see the same end of their dropped prompt, in the Copilot SDK's events:
 * the `abort` naming the dropped prompts, then `assistant.idle` and `session.idle`, aborted; no
 * error, and `sendAndWait` resolves with no reply, as the Copilot SDK's does for an aborted prompt
 * (session 40's follower got a `session.error` that the local app never got). Real server
 * processes on a real PostgreSQL.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { describeWorkers, holdAnswers, recordEvents } from "./workers-support.js";

/** What an app sees of the abort's end, from the running turn's end (not its queue's changes). */
const ending = (events: readonly WireEvent[]) => {
  const shown = events.filter((event) => event.type !== "pending_messages.modified");
  const from = shown.findIndex((event) => event.type === "assistant.turn_end");
  return shown.slice(from).map(({ type, data }) => ({ type, data }));
};

describeWorkers("an abort by one app with other apps' prompts queued", (workers) => {
  test("the local app and the follower on B see the same end: the abort, then the aborted idle", async () => {
    const { fixture } = workers;
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const second = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
    const local = await second.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
    const { session: remote } = await workers.followerSession(onA.sessionId);
    // Both queued prompts are in A's queue: A's app is told of each (`pending_messages.modified`).
    let changes = 0;
    const bothQueued = gate();
    onA.on((event) => {
      if (event.type === "pending_messages.modified" && ++changes === 2) {
        bothQueued.open();
      }
    });

    const requested = holdAnswers(fixture.model);
    await onA.send({ prompt: "runs until aborted" });
    await requested;
    const seenLocal = recordEvents(local, 1);
    const seenRemote = recordEvents(remote, 1);
    const answer = (reply: { data: { content: string } } | undefined) => reply ?? "no reply";
    const localWait = local.sendAndWait({ prompt: "queued by the local app" }).then(answer);
    const remoteWait = remote.sendAndWait({ prompt: "queued from B" }).then(answer);
    await bothQueued.opened;
    await onA.abort();
    expect(await localWait).toBe("no reply");
    expect(await remoteWait).toBe("no reply");
    await Promise.all([seenLocal.idle[0]?.opened, seenRemote.idle[0]?.opened]);
    fixture.model.setResponder(undefined);

    const turnEnd = {
      type: "assistant.turn_end",
      data: { turnId: expect.any(String), status: "cancelled" },
    };
    expect(ending(seenLocal.seen)).toEqual([
      turnEnd,
      {
        type: "abort",
        data: {
          reason: "user_initiated",
          message: "cancelled by the user",
          // The prompt sent from B, by the id B gave it (dropped-prompts.ts).
          droppedPromptIds: [expect.any(String)],
        },
      },
      { type: "assistant.idle", data: { aborted: true } },
      {
        type: "session.idle",
        data: { stopReason: "cancelled", aborted: true, mode: "interactive" },
      },
    ]);
    expect(ending(seenRemote.seen)).toEqual(ending(seenLocal.seen));
    await second.stop();
  }, 120_000);
});
