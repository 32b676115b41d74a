import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { createEnvelope, EventLogParser, parseEventLog } from "../../src/session/event-log.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { ResumeFold } from "../../src/session/resume-fold.js";
import { conversationEvents } from "../../src/session/rewind.js";
import { Session } from "../../src/session/session.js";
import type { LeaseOptions, OpenedSession } from "../../src/session/session-store.js";
import {
  buildEvents,
  makeTemporaryDirectory,
  sessionStart,
  toJsonl,
  userMessage,
} from "./support.js";

// Issue 26 figure 5a: a resume folds the conversation as the store reads it and asks the store to
// keep only the few events it reads itself (and the last one), not every envelope of a long log;
// what the session folds must not change.

/** One model turn asking for `view` and `bash` (allowed for the session), and their results. */
function toolTurn(turn: number): EventInput[] {
  const turnId = `turn-${turn}`;
  const view = { toolCallId: `view-${turn}`, name: "view", arguments: { path: "notes.md" } };
  const bash = { toolCallId: `bash-${turn}`, name: "bash", arguments: { command: "ls" } };
  const completed = (call: { toolCallId: string; name: string }, content: string): EventInput => ({
    type: "tool.execution_complete",
    data: { toolCallId: call.toolCallId, toolName: call.name, success: true, result: { content } },
  });
  return [
    { type: "assistant.turn_start", data: { turnId } },
    {
      type: "assistant.message",
      data: {
        messageId: `message-${turn}`,
        content: "Looking.",
        toolRequests: [view, bash],
        finishReason: "tool-calls",
      },
    },
    {
      type: "assistant.usage",
      data: { model: "openai:gpt-5", turnId, inputTokens: 100 * turn, outputTokens: 10 },
    },
    {
      type: "assistant.turn_end",
      data: { turnId, status: "completed", finishReason: "tool-calls" },
    },
    { type: "tool.execution_start", data: { ...view, toolName: "view" } },
    { type: "tool.execution_start", data: { ...bash, toolName: "bash" } },
    {
      type: "permission.requested",
      data: {
        requestId: `request-${turn}`,
        toolCallId: bash.toolCallId,
        toolName: "bash",
        kind: "execute",
        title: "Run ls",
      },
    },
    {
      type: "permission.completed",
      data: {
        requestId: `request-${turn}`,
        toolCallId: bash.toolCallId,
        decision: "allowed",
        scope: "session",
        rule: "bash(ls)",
      },
    },
    completed(bash, `files of turn ${turn}`),
    completed(view, `notes of turn ${turn}`),
  ] as EventInput[];
}

function sessionEvents(sessionId: string): SessionEvent[] {
  return buildEvents([
    sessionStart(sessionId),
    userMessage("look at the notes"),
    ...toolTurn(1),
    ...toolTurn(2),
    { type: "assistant.turn_start", data: { turnId: "turn-3" } },
    {
      type: "assistant.message",
      data: { messageId: "message-3", content: "Done.", toolRequests: [], finishReason: "stop" },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "turn-3", status: "completed", finishReason: "stop" },
    },
  ]);
}

/** The history a fold of every event gives: what a resume must equal. */
function foldAll(events: readonly SessionEvent[]): History {
  const history = new History();
  for (const event of conversationEvents(events)) {
    history.apply(event);
  }
  return history;
}

async function storeWith(events: readonly SessionEvent[], sessionId: string) {
  const home = await makeTemporaryDirectory();
  const directory = join(home, "session-state", sessionId);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, "events.jsonl"), toJsonl(events));
  return new FileSessionStore(home);
}

/** A store that ignores `keep`, as `LeaseOptions.keep` allows: it gives back every event. */
class KeepIgnoringStore extends FileSessionStore {
  override open(sessionId: string, options: LeaseOptions = {}): Promise<OpenedSession> {
    const { keep: _ignored, ...rest } = options;
    return super.open(sessionId, rest);
  }
}

/** `events` with a rewind to the event `target` picks and a user message after it. */
function rewound(events: readonly SessionEvent[], target: SessionEvent | undefined) {
  if (target === undefined) {
    throw new Error("the log has no such event");
  }
  const rewind = createEnvelope(
    { type: "session.snapshot_rewind", data: { upToEventId: target.id, eventsRemoved: 13 } },
    events.at(-1)?.id ?? null,
  );
  return [...events, rewind, createEnvelope(userMessage("start again"), rewind.id)];
}

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe("parseEventLog with keep", () => {
  it("keeps what keep keeps and the last event, counts every event and lists all damage", () => {
    const events = sessionEvents("s1").slice(0, 6);
    const lines = toJsonl(events).toString("utf8").split("\n");
    const damaged = "{damaged";
    lines.splice(3, 0, damaged);
    const seen: Array<[string, number]> = [];
    const contents = parseEventLog(Buffer.from(lines.join("\n")), 1, (event, seq) => {
      seen.push([event.type, seq]);
      return event.type === "user.message";
    });
    expect(seen).toEqual([
      ["session.start", 1],
      ["user.message", 2],
      ["assistant.turn_start", 3],
      ["assistant.message", 5],
      ["assistant.usage", 6],
      ["assistant.turn_end", 7],
    ]);
    expect(contents).toEqual({
      events: [events[1], events[5]],
      seqs: [2, 7],
      repaired: [
        {
          line: 4,
          offset: Buffer.byteLength(lines.slice(0, 3).join("\n")) + 1,
          length: damaged.length,
          reason: "invalid_json",
        },
      ],
      validLength: Buffer.byteLength(lines.join("\n")),
      nextSeq: 8,
      eventCount: 6,
      lastId: events[5]?.id,
      undecided: false,
    });
  });
});

describe("EventLogParser", () => {
  it("reads a log pushed in pieces cut anywhere as parseEventLog reads it whole", () => {
    const events = sessionEvents("s1").slice(0, 4);
    const bytes = Buffer.concat([
      toJsonl(events.slice(0, 2)),
      Buffer.from('{"type":"user.message","data":{"content":"caf\u00e9 \u{1f600}"'),
      Buffer.from([0xc3, 0x28, 0x0a]),
      toJsonl(events.slice(2)),
      Buffer.from('{"type":"user.message","data":{"content":"\u{1f600}'),
    ]);
    const whole = parseEventLog(bytes);
    expect(whole.repaired.map((note) => note.reason)).toEqual(["invalid_json", "torn_tail"]);
    for (const size of [1, 2, 3, 7, 64]) {
      const parser = new EventLogParser();
      for (let start = 0; start < bytes.length; start += size) {
        parser.push(bytes.subarray(start, start + size));
      }
      expect(parser.end()).toEqual(whole);
    }
  });
});

describe("Session.resume", () => {
  it("folds every event as the store reads them, keeping only the start and the last", async () => {
    const sessionId = randomUUID();
    const events = sessionEvents(sessionId);
    const store = await storeWith(events, sessionId);
    const fold = new ResumeFold();
    const { appender, log } = await store.open(sessionId, { keep: fold.keep });
    await appender.close();
    expect(log.events.map((event) => event.type)).toEqual(["session.start", "assistant.turn_end"]);
    expect(log.eventCount).toBe(events.length);
    expect(fold.foldedAll(log)).toBe(true);
    expect(fold.history.messages).toEqual(foldAll(events).messages);

    session = await Session.resume(store, sessionId);
    const whole = foldAll(events);
    expect(session.history.messages).toEqual(whole.messages);
    expect(session.history.meter.current(0)).toBe(whole.meter.current(0));
    expect(session.grants.allow.map((rule) => rule.tool)).toEqual(["bash", "bash"]);
    expect(session.resumeEvent?.data).toMatchObject({ eventCount: events.length, repaired: [] });
    expect(session.resumeEvent?.parentId).toBe(events.at(-1)?.id);
  });

  it("reads the whole log again for a rewind", async () => {
    const sessionId = randomUUID();
    const before = sessionEvents(sessionId);
    // Rewound to the second turn's start.
    const events = rewound(
      before,
      before.filter((event) => event.type === "assistant.turn_start")[1],
    );
    const store = await storeWith(events, sessionId);
    session = await Session.resume(store, sessionId);
    const whole = foldAll(events);
    expect(session.history.messages).toEqual(whole.messages);
    expect(session.history.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
    ]);
  });

  it("drops the messages and grants a rewind drops", async () => {
    const sessionId = randomUUID();
    const before = sessionEvents(sessionId);
    // Rewound to the second turn's assistant message: its calls and their grant go.
    const events = rewound(before, before.filter((event) => event.type === "assistant.message")[1]);
    const store = await storeWith(events, sessionId);
    session = await Session.resume(store, sessionId);
    expect(session.history.messages).toEqual(foldAll(events).messages);
    expect(session.history.messages.map((message) => message.content)).toEqual([
      "look at the notes",
      "Looking.",
      "notes of turn 1",
      "files of turn 1",
      "start again",
    ]);
    expect(session.grants.allow.map((rule) => rule.tool)).toEqual(["bash"]);
  });

  it("folds every event a store that ignores keep gives back", async () => {
    const sessionId = randomUUID();
    const events = sessionEvents(sessionId);
    const store = new KeepIgnoringStore((await storeWith(events, sessionId)).location);
    session = await Session.resume(store, sessionId);
    expect(session.history.messages).toEqual(foldAll(events).messages);
    expect(session.grants.allow.map((rule) => rule.tool)).toEqual(["bash", "bash"]);
    expect(session.resumeEvent?.data).toMatchObject({ eventCount: events.length, repaired: [] });
  });
});

describe("ResumeFold", () => {
  it("starts again when the store reads the log again from the start", () => {
    const events = sessionEvents("s1");
    const fold = new ResumeFold();
    for (const [index, event] of events.slice(0, 8).entries()) {
      fold.keep(event, index + 1);
    }
    for (const [index, event] of events.entries()) {
      fold.keep(event, index + 1);
    }
    const log = { events: [], seqs: [], repaired: [], nextSeq: events.length + 1 };
    expect(fold.foldedAll({ ...log, eventCount: events.length })).toBe(true);
    expect(fold.history.messages).toEqual(foldAll(events).messages);
    expect(fold.grants.allow.map((rule) => rule.tool)).toEqual(["bash", "bash"]);
  });
});
