import { expect, test } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { OpenWork } from "../../src/session/open-work.js";
import { foldSession } from "../../src/session/session-model/session-model.js";

// Round 3 session 44: the reopen asked a second reader of the events (open-prompt.ts) whether the
// prompt being answered had an end, with its own copy of the session model's stop rule. The two
// disagreed where the copy lagged: a hook's prompt (an app's `agentStop` follow-up, which the loop
// answers) and a prompt lost with a damaged line, each left between two turns by a killed
// process, were shown by every view with no stop, and no reopen ever ended them. The reopen now
// asks the one fold (session-model/prompt-stops.ts), and what it ends is what the views showed open.

let sequence = 0;
function event(input: EventInput): SessionEvent {
  sequence += 1;
  const envelope = { id: `e${sequence}`, timestamp: "2026-12-07T00:00:00.000Z", parentId: null };
  return { ...input, ...envelope } as SessionEvent;
}

const start: EventInput = {
  type: "session.start",
  data: {
    sessionId: "s",
    version: 1,
    producer: "turnloop",
    startTime: "2026-12-07T00:00:00.000Z",
    cwd: "/tmp",
    model: "openai:gpt-5",
  },
} as EventInput;

/** A conversation turn that ends with `stopReason`, or asks for a tool and goes on (none). */
function turn(turnId: string, stopReason?: "end_turn"): EventInput[] {
  const call = { toolCallId: `call-${turnId}`, name: "view", arguments: { path: "a" } };
  const asked = stopReason === undefined;
  return [
    { type: "assistant.turn_start", data: { turnId } },
    {
      type: "assistant.message",
      data: {
        messageId: `m-${turnId}`,
        content: asked ? "Looking." : "Done.",
        toolRequests: asked ? [call] : [],
        finishReason: asked ? "tool-calls" : "stop",
      },
    },
    ...(asked
      ? ([
          { type: "tool.execution_start", data: { ...call, toolName: "view" } },
          {
            type: "tool.execution_complete",
            data: {
              toolCallId: call.toolCallId,
              toolName: "view",
              success: true,
              result: { content: "x" },
            },
          },
        ] as EventInput[])
      : []),
    {
      type: "assistant.turn_end",
      data: {
        turnId,
        status: "completed",
        finishReason: asked ? "tool-calls" : "stop",
        ...(asked ? {} : { stopReason }),
      },
    },
  ];
}

const user = (content: string, source: "user" | "hook" = "user"): EventInput => ({
  type: "user.message",
  data: { content, source },
});

/** What a reopen writes to end the log, and the stop each prompt has in the fold after it. */
function reopen(inputs: EventInput[]): { closing: EventInput[]; stops: Array<string | undefined> } {
  const events = [start, ...inputs].map(event);
  const work = new OpenWork();
  for (const each of events) {
    work.apply(each);
  }
  const closing = work.closingEvents([]);
  const model = foldSession([...events, ...closing.map(event)]);
  const stops = model.prompts.map(
    (prompt) => `${prompt.source}${prompt.lost ? " (lost)" : ""}: ${prompt.stop}`,
  );
  return { closing, stops };
}

const ended = {
  type: "session.error",
  data: {
    errorType: "server",
    message:
      "the prompt was interrupted: the process running it ended before it finished (the session was reopened since)",
  },
};

test("a user's prompt left between two turns is ended, as before", () => {
  expect(reopen([user("go"), ...turn("t1")])).toEqual({
    closing: [ended],
    stops: ["user: interrupted"],
  });
});

test("a hook's follow-up prompt the loop answered, left between two turns, is ended as the views show it open", () => {
  expect(
    reopen([user("go"), ...turn("t1", "end_turn"), user("keep going", "hook"), ...turn("t2")]),
  ).toEqual({
    closing: [ended],
    stops: ["user: end_turn", "hook: interrupted"],
  });
});

test("a prompt lost with a damaged line, left between two turns, is ended as the views show it open", () => {
  // The second prompt's `user.message` is the damaged line the reader skipped.
  expect(reopen([user("go"), ...turn("t1", "end_turn"), ...turn("t2")])).toEqual({
    closing: [ended],
    stops: ["user: end_turn", "user (lost): interrupted"],
  });
});

test("an app's sessionStart context, no turn answering it, is no prompt to end", () => {
  expect(reopen([user("context for the session", "hook")])).toEqual({
    closing: [],
    stops: ["hook: undefined"],
  });
});
