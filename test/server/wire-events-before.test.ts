import { describe, expect, it } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { copilotEventsBefore } from "../../src/server/wire-events.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { bytesAllocatedIn } from "../support/heap-sampling.js";

const PARENT = "019cfd9c-79b8-49f2-b681-c8ed962e0e55";
const event = (input: { type: string; data: object }): SessionEvent =>
  createEnvelope(input as EventInput, PARENT);
const delta = (deltaContent: string) =>
  event({ type: "assistant.message_delta", data: { messageId: "m-1", deltaContent } });
const reply = (reasoning?: string) =>
  event({
    type: "assistant.message",
    data: {
      messageId: "m-1",
      content: "done",
      toolRequests: [],
      finishReason: "stop",
      ...(reasoning === undefined ? {} : { reasoning }),
    },
  });

/** An event sent before another: its id is new, its parent and time are the other's. */
const sentBefore = (after: SessionEvent, type: string, data: object, ephemeral?: true) => ({
  type,
  data,
  id: expect.any(String),
  timestamp: after.timestamp,
  parentId: after.parentId,
  ...(ephemeral ? { ephemeral } : {}),
});

describe("copilotEventsBefore", () => {
  it("sends Copilot's assistant.idle and assistant.reasoning where they belong, nothing elsewhere", () => {
    const idle = event({ type: "session.idle", data: { stopReason: "end_turn" } });
    const cancelled = event({ type: "session.idle", data: { stopReason: "cancelled" } });
    const autopilot = event({
      type: "user.message",
      data: { content: "go on", source: "autopilot" },
    });
    const typed = event({ type: "user.message", data: { content: "hi" } });
    const thought = reply("thinking");
    const answers = [
      delta("w1 "),
      reply(),
      reply(""),
      thought,
      idle,
      cancelled,
      autopilot,
      typed,
    ].map((sent) => [...copilotEventsBefore(sent)]);
    expect(answers).toEqual([
      [],
      [],
      [],
      [sentBefore(thought, "assistant.reasoning", { content: "thinking", reasoningId: "m-1" })],
      [sentBefore(idle, "assistant.idle", {}, true)],
      [sentBefore(cancelled, "assistant.idle", { aborted: true }, true)],
      [sentBefore(autopilot, "assistant.idle", {}, true)],
      [],
    ]);
  });

  it("allocates nothing a streamed delta, which has nothing before it", async () => {
    const deltas = Array.from({ length: 20_000 }, (_, index) => delta(`w${index} `));
    // V8's own first-call data (feedback vectors) is made on the heap too: a warm-up first.
    for (const sent of deltas.slice(0, 100)) {
      copilotEventsBefore(sent);
    }
    let nothingBefore = 0;
    const bytes = await bytesAllocatedIn("copilotEventsBefore", () => {
      for (const sent of deltas) {
        nothingBefore += copilotEventsBefore(sent).length === 0 ? 1 : 0;
      }
    });
    // Nothing a delta: what V8 may make once while these calls run (optimised code, its data:
    // a few KiB) stays far below a byte a call; the array each call made was about 100 bytes.
    expect({ nothingBefore, underAByteEach: bytes < deltas.length }).toEqual({
      nothingBefore: 20_000,
      underAByteEach: true,
    });
  });
});
