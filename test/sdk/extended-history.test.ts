import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { useCopilotClient } from "./extended-support.js";
import { recordEvents, requestMessages } from "./support.js";

/**
 * Issue 25, extended: `session.history.truncate` / `rewind` / `listRewindPoints` /
 * `previewRewind` and `sessions.fork`, driven through the official `@github/copilot-sdk` over the
 * built CLI against the fake model.
 */

const setup = useCopilotClient();

/** The user and assistant texts of the fake model's latest request, system prompt left out. */
function lastConversation(): string[] {
  return requestMessages(setup.fixture.model, -1)
    .filter((message) => message.role !== "system")
    .map((message) => `${String(message.role)}: ${String(message.content)}`);
}

/** Sends each prompt in turn; the model answers each with `reply <prompt>`. */
async function converse(
  session: { sendAndWait(options: { prompt: string }): Promise<unknown> },
  ...prompts: string[]
): Promise<void> {
  for (const prompt of prompts) {
    setup.fixture.model.enqueue({ text: `reply ${prompt}` });
    await session.sendAndWait({ prompt });
  }
}

/** The exchanges {@link converse} makes of `prompts`, as {@link lastConversation} shows them. */
function conversed(...prompts: string[]): string[] {
  return prompts.flatMap((prompt) => [`user: ${prompt}`, `assistant: reply ${prompt}`]);
}

function userMessageId(events: readonly SessionEvent[], content: string): string {
  const found = events.find(
    (event) => event.type === "user.message" && event.data.content === content,
  );
  if (found === undefined) {
    throw new Error(`no user.message "${content}"`);
  }
  return found.id;
}

describe("session.history", () => {
  test("rewind and truncate drop the later events from the model's view, getMessages and a resume, keeping the log whole", async () => {
    const session = await setup.client.createSession({ onPermissionRequest: approveAll });
    await converse(session, "first", "second", "third");
    const before = await session.getEvents();
    const secondId = userMessageId(before, "second");

    const points = await session.rpc.history.listRewindPoints();
    expect(points).toEqual({
      fileChangeTrackingEnabled: false,
      points: ["first", "second", "third"].map((prompt) => ({
        eventId: userMessageId(before, prompt),
        userMessage: prompt,
        timestamp: expect.any(String),
        canRestoreFiles: false,
        fileCount: 0,
        turnChangedFiles: false,
        linesAdded: 0,
        linesRemoved: 0,
        isAutopilotContinuation: false,
      })),
    });
    expect(await session.rpc.history.previewRewind({ eventId: secondId })).toEqual({
      available: false,
      reason: "file-change-tracking-disabled",
      fileCount: 0,
      files: [],
    });
    expect(
      await session.rpc.history.rewind({ eventId: secondId, mode: "conversation-and-files" }),
    ).toEqual({ outcome: "file-change-tracking-disabled", restoredFiles: [], skippedFiles: [] });

    const live = recordEvents(session);
    const cut = before.findIndex((event) => event.id === secondId);
    const removed = before.length - cut;
    expect(await session.rpc.history.rewind({ eventId: secondId, mode: "conversation" })).toEqual({
      outcome: "success",
      eventsRemoved: removed,
      restoredFiles: [],
      skippedFiles: [],
    });
    const rewind = { upToEventId: secondId, eventsRemoved: removed };
    expect(live.map((event) => [event.type, event.data])).toEqual([
      ["session.snapshot_rewind", rewind],
    ]);
    const afterRewind = await session.getEvents();
    expect(afterRewind.map((event) => event.type)).toEqual([
      ...before.slice(0, cut).map((event) => event.type),
      "session.snapshot_rewind",
    ]);

    // The log keeps every event: the rewind is an event appended after them.
    const logPath = join(setup.fixture.home, "session-state", session.sessionId, "events.jsonl");
    const logged = (await readFile(logPath, "utf8")).trim().split("\n");
    expect(logged.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([
      ...before.map((event) => event.id),
      afterRewind.at(-1)?.id,
    ]);

    await converse(session, "again");
    expect(lastConversation()).toEqual([...conversed("first"), "user: again"]);

    // Truncate at an assistant message: its prompt stays, the reply and what follows go.
    const withAgain = await session.getEvents();
    const reply = withAgain.findLast((event) => event.type === "assistant.message");
    expect(reply?.type === "assistant.message" && reply.data.content).toBe("reply again");
    const replyIndex = withAgain.findIndex((event) => event.id === reply?.id);
    expect(await session.rpc.history.truncate({ eventId: reply?.id ?? "" })).toEqual({
      eventsRemoved: withAgain.length - replyIndex,
    });
    await expect(session.rpc.history.truncate({ eventId: secondId })).rejects.toThrow(
      `session.history.truncate: event ${secondId} is not in the session's conversation`,
    );
    await expect(session.rpc.history.truncate({ eventId: before[0]?.id ?? "" })).rejects.toThrow(
      "is the session's start, which cannot be removed",
    );

    // A resume folds the log the same way.
    await session.disconnect();
    const resumed = await setup.client.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
    });
    await converse(resumed, "after resume");
    expect(lastConversation()).toEqual([
      ...conversed("first"),
      "user: again",
      "user: after resume",
    ]);
    await resumed.disconnect();
  });
});

describe("sessions.fork", () => {
  test("a fork holds the conversation before the event and its name; both sessions go on apart", async () => {
    const source = await setup.client.createSession({ onPermissionRequest: approveAll });
    await converse(source, "first", "second");
    const sourceEvents = await source.getEvents();
    const secondId = userMessageId(sourceEvents, "second");

    const fork = await setup.client.rpc.sessions.fork({
      sessionId: source.sessionId,
      toEventId: secondId,
      name: "branch",
    });
    expect(fork).toEqual({ sessionId: expect.any(String), name: "branch" });
    expect(fork.sessionId).not.toBe(source.sessionId);

    const forked = await setup.client.resumeSession(fork.sessionId, {
      onPermissionRequest: approveAll,
    });
    const cut = sourceEvents.findIndex((event) => event.id === secondId);
    const forkedEvents = await forked.getEvents();
    expect(forkedEvents.map((event) => event.type)).toEqual([
      ...sourceEvents.slice(0, cut).map((event) => event.type),
      "session.title_changed",
      "session.resume",
    ]);
    expect(forkedEvents[0]?.data).toMatchObject({ sessionId: fork.sessionId });
    expect(await forked.rpc.name.get()).toEqual({ name: "branch" });

    await converse(forked, "other way");
    expect(lastConversation()).toEqual([...conversed("first"), "user: other way"]);
    await converse(source, "third");
    expect(lastConversation()).toEqual([...conversed("first", "second"), "user: third"]);

    const whole = await setup.client.rpc.sessions.fork({ sessionId: source.sessionId });
    expect(whole).toEqual({ sessionId: expect.any(String) });
    const wholeSession = await setup.client.resumeSession(whole.sessionId, {
      onPermissionRequest: approveAll,
    });
    const sourceNow = await source.getEvents();
    expect((await wholeSession.getEvents()).map((event) => event.type)).toEqual([
      ...sourceNow.map((event) => event.type),
      "session.resume",
    ]);
    await expect(
      setup.client.rpc.sessions.fork({ sessionId: source.sessionId, toEventId: "no-such-event" }),
    ).rejects.toThrow("sessions.fork: event no-such-event is not in the session's conversation");
    await Promise.all([forked.disconnect(), source.disconnect(), wholeSession.disconnect()]);
  });
});
