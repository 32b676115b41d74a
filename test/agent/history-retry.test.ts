/**
 * A request sent again after it failed (`assistant.retry`, an SDK app's `errorOccurred` retry) is
 * the request that failed: the reply it broke off with stays in the log, interrupted, and leaves
 * the model's view, with the note the next user message would have carried. Folding the log again
 * (a resume) gives the same view.
 */

import { describe, expect, it } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput } from "../../src/events/events.js";
import { buildEvents } from "../session/support.js";

const broken: EventInput = {
  type: "assistant.message",
  data: {
    messageId: "m1",
    content: "Hel",
    toolRequests: [],
    finishReason: "other",
    interrupted: true,
    error: { errorType: "network", message: "the connection was reset" },
  },
};
const retry: EventInput = {
  type: "assistant.retry",
  data: { turnId: "t1", attempt: 1, errorType: "network", errorMessage: "reset", delayMs: 0 },
};
const answer: EventInput = {
  type: "assistant.message",
  data: { messageId: "m2", content: "Hello.", toolRequests: [], finishReason: "stop" },
};

function folded(events: EventInput[]): History {
  const history = new History();
  for (const event of buildEvents(events)) {
    history.apply(event);
  }
  return history;
}

describe("History after a retry", () => {
  it("drops the broken reply from the view; the answer and the next prompt read as if it never came", () => {
    const events: EventInput[] = [
      { type: "user.message", data: { content: "hi", source: "user" } },
      broken,
      retry,
    ];
    expect(folded(events).messages).toEqual([{ role: "user", content: "hi" }]);
    const later = folded([
      ...events,
      answer,
      { type: "user.message", data: { content: "more", source: "user" } },
    ]);
    expect(later.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello.", toolCalls: [] },
      { role: "user", content: "more" },
    ]);
    expect(later.latestAssistantMessage).toEqual({
      role: "assistant",
      content: "Hello.",
      toolCalls: [],
    });
  });

  it("keeps a broken reply no retry followed (the prompt failed): the next prompt carries its note", () => {
    const history = folded([
      { type: "user.message", data: { content: "hi", source: "user" } },
      broken,
      { type: "user.message", data: { content: "again", source: "user" } },
      retry,
    ]);
    expect(history.messages.map((message) => message.content)).toEqual([
      "hi",
      "Hel",
      "[Your previous reply broke off before it finished: the connection was reset]\n\nagain",
    ]);
  });
});
