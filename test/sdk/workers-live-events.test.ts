/**
 * What an app on the owner's worker sees that no stored event tells reaches an app following the
 * session from worker B too, in the same order (session/live-events.ts): the owner's queue of
 * prompts changing (`pending_messages.modified`), as a prompt from each app waits behind a running
 * one and an abort drops them. Before, B's app saw none of them. The streams (deltas), which stay
 * on the owner, are left out of both. Real server processes on a real PostgreSQL.
 */

import { expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { gate } from "../support/gate.js";
import { describeWorkers, holdAnswers, recordEvents } from "./workers-support.js";

/** The stream deltas, which stay on the owner (session/live-events.ts). */
const STREAMS = new Set(["assistant.message_delta", "assistant.reasoning_delta"]);
const shown = (events: readonly WireEvent[]) =>
  events.filter((event) => !STREAMS.has(event.type)).map(({ type, data }) => ({ type, data }));

describeWorkers("the owner's live events, to an app following on another worker", (workers) => {
  test("a local second app and a follower on B see the same events, queue changes included", async () => {
    const { fixture } = workers;
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const second = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
    const local = await second.resumeSession(onA.sessionId, { onPermissionRequest: approveAll });
    const { session: remote } = await workers.followerSession(onA.sessionId);
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
    const localWait = local.sendAndWait({ prompt: "queued by the local app" });
    const remoteWait = remote.sendAndWait({ prompt: "queued from B" });
    await bothQueued.opened;
    await onA.abort();
    await Promise.all([localWait, remoteWait]);
    await Promise.all([seenLocal.idle[0]?.opened, seenRemote.idle[0]?.opened]);
    fixture.model.setResponder(undefined);
    // One more prompt, after which every event of the abort has reached both.
    fixture.model.enqueue({ text: "after" });
    await onA.sendAndWait({ prompt: "after" });
    await Promise.all([
      expect.poll(() => seenLocal.seen.at(-1)?.type).toBe("session.idle"),
      expect.poll(() => seenRemote.seen.filter((e) => e.type === "session.idle").length).toBe(2),
    ]);

    const types = shown(seenLocal.seen).map(({ type }) => type);
    expect(types.filter((type) => type === "pending_messages.modified")).toHaveLength(3);
    expect(shown(seenRemote.seen)).toEqual(shown(seenLocal.seen));
    await second.stop();
  }, 120_000);
});
