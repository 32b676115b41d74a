/**
 * A follower's prompts (issue 22, `SentPrompts` in session/prompt-end.ts): each started by its
 * `user.message` and ended by the stored end, one idle after the last; an abort, the owner's
 * shutdown, a dead owner and a newer lease's epoch ending or dropping the ones still waiting
 * (prompt-end.test.ts: how one stored event ends a prompt).
 */

import { describe, expect, it } from "vitest";
import type { EventInput } from "../../src/events/events.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { SentPrompts } from "../../src/session/prompt-end.js";
import { failure, prompt, turnEnd } from "./prompt-end-events.js";

describe("a prompt's end, for its owner and its followers", () => {
  it("a follower's prompt: started by its user.message, ended by the stored end, one idle after the last", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const news = [
      createEnvelope(prompt("one", first), null),
      createEnvelope(turnEnd({ finishReason: "stop", stopReason: "end_turn" }), null),
      createEnvelope(prompt("two", second), null),
      createEnvelope({ type: "session.error", data: failure }, null),
    ].map((event) => sent.stored(event));
    expect(news).toEqual([
      { kind: "started", promptId: first },
      { kind: "ended", end: { stopReason: "end_turn" }, promptId: first, idle: false },
      { kind: "started", promptId: second },
      { kind: "ended", end: { error: failure }, promptId: second, idle: true },
    ]);
  });

  it("one abort on the owner ends the running prompt and drops the follower's queued ones, once", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const third = sent.add();
    const dropped = (droppedPromptIds: string[]): EventInput => ({
      type: "abort",
      data: { reason: "cancelled by the user", droppedPromptIds },
    });
    const news = [
      createEnvelope(prompt("one", first), null),
      // Another worker's prompt is named too: only this follower's are news here.
      createEnvelope(dropped([second, "of-another-worker", third]), null),
      // A later abort naming none of this follower's prompts ends whatever ran, as any abort.
      createEnvelope(dropped(["of-another-worker"]), null),
    ].map((event) => sent.stored(event));
    expect(news).toEqual([
      { kind: "started", promptId: first },
      { kind: "dropped", promptIds: [second, third], cause: "abort" },
      { kind: "ended", end: { stopReason: "cancelled" }, promptId: undefined, idle: true },
    ]);
    expect([sent.has(first), sent.has(second), sent.has(third), sent.waiting]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it("a follower's prompts the owner closed the session before running are dropped by the shutdown", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const shutdown: EventInput = {
      type: "session.shutdown",
      data: {
        shutdownType: "routine",
        sessionStartTime: 0,
        totalApiDurationMs: 0,
        modelMetrics: {},
        codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
        currentModel: "fake",
        currentTokens: 0,
      },
    };
    expect(sent.stored(createEnvelope(shutdown, null))).toEqual({
      kind: "dropped",
      promptIds: [first],
      cause: "shutdown",
    });
    expect(sent.ownerClosed).toBe(true);
  });

  it("a dead owner's prompts: the running one ended unfinished, the rest dropped, and the next send claims the session", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const third = sent.add();
    sent.stored(createEnvelope(prompt("one", first), null));
    expect([sent.waiting, sent.ownerClosed, sent.unstarted()]).toEqual([
      true,
      false,
      [second, third],
    ]);
    // The follower withdrew `third` from the inbox before the owner took it.
    expect(sent.withdrawn([third, "of-another-follower"])).toEqual([third]);
    expect(sent.ownerGone()).toEqual({ dropped: [second], interrupted: first });
    expect([sent.waiting, sent.ownerClosed, sent.has(first), sent.has(second)]).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it("settling under a live lease of a newer epoch drops the prompts withdrawn and those a replaced lease took; the rest still wait", () => {
    const sent = new SentPrompts();
    const [taken, withdrawn, current, posting] = [sent.add(), sent.add(), sent.add(), sent.add()];
    sent.addressed(taken, 1);
    sent.addressed(withdrawn, 1);
    sent.addressed(current, 2);
    // `posting`'s post has not answered yet: its epoch is unknown, so it still waits.
    const settled = { withdrawn: [withdrawn], ownerStopped: false as const, epoch: 2 };
    expect(sent.settle(settled)).toEqual({
      dropped: [taken, withdrawn],
      interrupted: undefined,
      cause: "replaced",
    });
    expect([sent.unstarted(), sent.ownerClosed]).toEqual([[current, posting], false]);
    // The lease the prompts were sent to still holds the session: nothing changes.
    expect(sent.settle({ withdrawn: [], ownerStopped: false, epoch: 2 })).toEqual({
      dropped: [],
      interrupted: undefined,
      cause: "replaced",
    });
    // A fenced lease: every prompt not started is dropped, as {@link SentPrompts.ownerGone}.
    expect(sent.settle({ withdrawn: [], ownerStopped: "lapsed", epoch: 3 })).toEqual({
      dropped: [current, posting],
      interrupted: undefined,
      cause: "lapsed",
    });
    expect([sent.waiting, sent.ownerClosed]).toEqual([false, true]);
  });

  it("the owner's refusals end only the follower's waiting prompts, each once", () => {
    const sent = new SentPrompts();
    const first = sent.add();
    const second = sent.add();
    const error = { errorType: "context_length_exceeded" as const, message: "too large" };
    const refused = sent.refused([
      { promptId: "someone else's", error },
      { promptId: second, error },
    ]);
    expect(refused).toEqual([{ promptId: second, error }]);
    expect(sent.unstarted()).toEqual([first]);
    expect(sent.refused([{ promptId: second, error }])).toEqual([]);
    expect(sent.waiting).toBe(true);
  });

  it("a refusal of the running prompt (its events refused by the owner's store) ends it too", () => {
    const sent = new SentPrompts();
    const running = sent.add();
    const queued = sent.add();
    expect(sent.stored(createEnvelope(prompt("a", running), null))).toEqual({
      kind: "started",
      promptId: running,
    });
    expect(sent.unended()).toEqual([running, queued]);
    const error = { errorType: "storage" as const, message: "the database refuses 3 events" };
    expect(sent.refused([{ promptId: running, error }])).toEqual([{ promptId: running, error }]);
    expect(sent.unended()).toEqual([queued]);
    expect(sent.refused([{ promptId: running, error }])).toEqual([]);
  });
});
