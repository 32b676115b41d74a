import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { approveAll, type TurnloopClient } from "../../src/sdk/index.js";
import { LIVE_UNSTREAMED_PROMPT, requestedToolCall } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import {
  fixtureForFile,
  inLogOrder,
  MODEL,
  nextEvent,
  normalise,
  recordEvents,
  requestMessages,
} from "./support.js";

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/** The SDK face names models bare, as the Copilot CLI does (the log keeps `MODEL`). */
const BARE_MODEL = MODEL.slice(MODEL.indexOf(":") + 1);
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, reasoningTokens: 0 };

describe("the SDK against the built server (stdio)", () => {
  test("a tool turn: every event, in order, then the same persisted events on disk", async () => {
    await writeFile(join(fixture.cwd, "notes.txt"), "hello\n");
    const session = await client.createSession();
    const events = recordEvents(session);
    fixture.model.enqueue(callingTools(["call_1", "view", { path: "notes.txt" }]), {
      text: ["It says ", "hello."],
    });
    const reply = await session.sendAndWait({ prompt: "Read notes.txt" });
    expect(reply?.data.content).toBe("It says hello.");
    // Copilot's context report after each model call: the request's input tokens, the history.
    const usageInfo = (messagesLength: number) => ({
      type: "session.usage_info",
      // The tokens and the window are asserted in copilot-core.test.ts ("events and fields").
      data: { currentTokens: expect.any(Number), tokenLimit: expect.any(Number), messagesLength },
    });
    const turnEnd = (turnId: string, finishReason: string, stopReason?: string) => ({
      type: "assistant.turn_end",
      data: { turnId, status: "completed", finishReason, ...(stopReason && { stopReason }) },
    });
    expect(normalise(events, fixture)).toEqual([
      {
        type: "user.message",
        data: {
          content: "Read notes.txt",
          source: "user",
          agentMode: "interactive",
          promptId: "prompt-1",
        },
      },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      // Not `assistant.tool_call_start` (turnloop's own, not on Copilot's wire).
      // The request's usage before its reply, in Copilot's order (src/server/usage-order.ts).
      usageInfo(2),
      { type: "assistant.usage", data: { model: BARE_MODEL, turnId: "turn-1", ...usage } },
      ...requestedToolCall("message-1", "call_1", "view", { path: "notes.txt" }).slice(1),
      {
        type: "tool.execution_start",
        data: { toolCallId: "call_1", toolName: "view", arguments: { path: "notes.txt" } },
      },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "view",
          success: true,
          result: { content: "1. hello" },
          // What the model now knows of the file: an edit refuses it once its text changes.
          knownFile: { path: "<cwd>/notes.txt", sha256: sha256OfText("hello\n") },
        },
      },
      // The turn holds its tools.
      turnEnd("turn-1", "tool-calls"),
      { type: "assistant.turn_start", data: { turnId: "turn-2" } },
      {
        type: "assistant.message_delta",
        data: { messageId: "message-2", deltaContent: "It says " },
      },
      { type: "assistant.message_delta", data: { messageId: "message-2", deltaContent: "hello." } },
      usageInfo(4),
      { type: "assistant.usage", data: { model: BARE_MODEL, turnId: "turn-2", ...usage } },
      {
        type: "assistant.message",
        data: {
          messageId: "message-2",
          content: "It says hello.",
          toolRequests: [],
          finishReason: "stop",
        },
      },
      turnEnd("turn-2", "stop", "end_turn"),
      // Copilot's: the loop stopped, then the session has nothing in flight.
      { type: "assistant.idle", data: {} },
      { type: "session.idle", data: { stopReason: "end_turn", mode: "interactive" } },
    ]);
    // `assistant.usage` is marked ephemeral, as Copilot's type has it always, yet stored
    // (events.jsonl, getMessages): the counts of resume and rewind include it.
    const usages = events.filter((event) => event.type === "assistant.usage");
    expect(usages.map((event) => event.ephemeral)).toEqual([true, true]);
    const persisted = await session.getMessages();
    const stored = (event: { type: string; ephemeral?: boolean }) =>
      event.ephemeral !== true || event.type === "assistant.usage";
    // In the log a reply's message comes before its usage, which the wire sends first.
    expect(persisted.map((event) => event.type)).toEqual([
      "session.start",
      ...inLogOrder(events.filter(stored)).map((event) => event.type),
    ]);
    expect(persisted.slice(1).map((event) => event.id)).toEqual(
      inLogOrder(events.filter(stored)).map((event) => event.id),
    );
  });

  test("send answers at once with a message id; the loop runs on and ends with session.idle", async () => {
    const session = await client.createSession({ streaming: false });
    const events = recordEvents(session);
    // The reply is held until the test has seen send's answer.
    const answered = gate();
    fixture.model.enqueue({ text: "done", pause: { afterEvents: 0, until: answered.opened } });
    const idle = nextEvent(session, (event) => event.type === "session.idle");
    const messageId = await session.send({ prompt: "hi" });
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(events.some((event) => event.type === "session.idle")).toBe(false);
    answered.open();
    await idle;
    // streaming: false sends no deltas.
    expect(events.map((event) => event.type)).toEqual(LIVE_UNSTREAMED_PROMPT);
  });

  test("queued sends run one after another; immediate goes first; one idle when all are done", async () => {
    const session = await client.createSession({ streaming: false });
    const events = recordEvents(session);
    // The first reply is held until all three sends are answered, so two of them queue.
    const queued = gate();
    fixture.model.enqueue(
      { text: "one", pause: { afterEvents: 0, until: queued.opened } },
      { text: "three" },
      { text: "two" },
    );
    const idle = nextEvent(session, (event) => event.type === "session.idle");
    await session.send({ prompt: "first" });
    await session.send({ prompt: "second" });
    await session.send({ prompt: "third", mode: "immediate" });
    queued.open();
    await idle;
    // A later request's answer follows every event the server sent before it (one ordered
    // stream): a second idle or a late event would be here by now.
    await client.ping();
    const prompts = events.flatMap((event) =>
      event.type === "user.message" ? [event.data.content] : [],
    );
    expect(prompts).toEqual(["first", "third", "second"]);
    expect(events.filter((event) => event.type === "session.idle")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("session.idle");
  });

  test("autopilot: nudged until the model calls task_complete", async () => {
    const session = await client.createSession({ mode: "autopilot" });
    expect(await session.getMode()).toBe("autopilot");
    const events = recordEvents(session);
    fixture.model.enqueue(
      { text: "I will start." },
      callingTools(["call_done", "task_complete", { summary: "All done." }]),
    );
    await session.sendAndWait({ prompt: "do the task" });
    const relevant = events
      .filter((event) =>
        [
          "user.message",
          "tool.execution_complete",
          "session.task_complete",
          "assistant.idle",
          "session.idle",
        ].includes(event.type),
      )
      .map((event) => [event.type, "source" in event.data ? event.data.source : undefined]);
    // Copilot's `assistant.idle` each time the loop stops: before the nudge and at the end.
    expect(relevant).toEqual([
      ["user.message", "user"],
      ["assistant.idle", undefined],
      ["user.message", "autopilot"],
      ["tool.execution_complete", undefined],
      ["session.task_complete", undefined],
      ["assistant.idle", undefined],
      ["session.idle", undefined],
    ]);
    // Copilot's `IdleData.mode` (CLI 1.0.85; copilot-protocol.md §2.4): the prompt's agent mode.
    expect(events.at(-1)?.data).toEqual({ stopReason: "end_turn", mode: "autopilot" });
    expect(events.find((event) => event.type === "session.task_complete")?.data).toEqual({
      summary: "All done.",
      success: true,
    });
  });

  test("resume after client.stop(), list, delete", async () => {
    const first = fixture.client();
    const session = await first.createSession({ tools: [], onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "The answer is 42." });
    await session.sendAndWait({ prompt: "What is the answer?" });
    await first.stop();

    const second = fixture.client();
    const resumed = await second.resumeSession(session.sessionId);
    fixture.model.enqueue({ text: "84." });
    const reply = await resumed.sendAndWait({ prompt: "Double it." });
    expect(reply?.data.content).toBe("84.");
    const messages = requestMessages(fixture.model, -1)
      .filter((message) => message.role !== "system")
      .map((message) => [message.role, message.content]);
    expect(messages).toEqual([
      ["user", "What is the answer?"],
      ["assistant", "The answer is 42."],
      ["user", "Double it."],
    ]);
    const persisted = (await resumed.getMessages()).map((event) => event.type);
    expect(persisted.filter((type) => type.startsWith("session."))).toEqual([
      "session.start",
      "session.shutdown",
      "session.resume",
    ]);

    const listed = await second.listSessions({ cwd: fixture.cwd });
    expect(listed.find((entry) => entry.sessionId === session.sessionId)).toMatchObject({
      summary: "What is the answer?",
      context: { cwd: fixture.cwd },
      model: MODEL,
      turns: 2,
      isRemote: false,
    });
    await second.deleteSession(session.sessionId);
    const after = await second.listSessions();
    expect(after.some((entry) => entry.sessionId === session.sessionId)).toBe(false);
    // Round 3, session 19, item 6: what happened, not `ENOENT … open '…/<id>/lock'`; the words
    // of every method naming a session an app deleted (session 42).
    const deleted = `Session not found: ${session.sessionId} (it was deleted: session.delete)`;
    await expect(second.deleteSession(session.sessionId)).rejects.toThrow(deleted);
    await expect(second.resumeSession(session.sessionId)).rejects.toThrow(deleted);
    // A session never made (or deleted long ago: server/recent-sessions.ts) is said not there.
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(second.resumeSession(unknown)).rejects.toThrow(
      `session.resume: no session ${unknown} exists here (it was deleted, or never made)`,
    );
  });
});

/** The hash `knownFile` carries for a file's text: SHA-256 of its UTF-16 code units, in hex. */
function sha256OfText(text: string): string {
  return createHash("sha256").update(text, "utf16le").digest("hex");
}
