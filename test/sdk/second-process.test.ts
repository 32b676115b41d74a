/**
 * A second process resuming a session another process has open (issue 25), as apps on the
 * official `@github/copilot-sdk` do it (its suite's "should resume a session using a new client"):
 * two clients, each with its own built CLI process, on one file store. The first process lets the
 * session's writer lease go while idle, so the second resumes the session and prompts it, and the
 * first client sees those events, and a `session.idle` where the second's prompt ends; a prompt
 * sent while the other process runs one waits for it.
 * The suite's "resumes a persisted session from a new client when an MCP OAuth handler is
 * configured" is mirrored too.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { eventually } from "../llm/helpers.js";
import { runCli } from "../support/cli.js";
import { ANSWERED_SESSION, LIVE_UNSTREAMED_PROMPT } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import {
  fixtureForFile,
  inLogOrder,
  nextEvent,
  requestMessages,
  startCopilotClient,
} from "./support.js";

const fixture = fixtureForFile();

/** A client with a CLI process of its own, stopped after the file's last test. */
const newProcess = (): Promise<CopilotClient> => startCopilotClient(fixture);

/**
 * The stored events, in the log's order: `assistant.usage` too, though marked ephemeral as
 * Copilot's type has it, after its reply's `assistant.message` (the wire sends it before:
 * src/server/usage-order.ts).
 */
const persisted = (events: readonly SessionEvent[]) =>
  inLogOrder(
    events.filter((event) => event.ephemeral !== true || event.type === "assistant.usage"),
  );

describe("a second process resuming an open session", () => {
  test("resumes it with its history, continues the conversation, and the first client sees it", async () => {
    const first = await newProcess();
    const session1 = await first.createSession({ onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "1+1 = 2" });
    const answer = await session1.sendAndWait({ prompt: "What is 1+1?" });
    expect(answer?.data.content).toBe("1+1 = 2");
    const seenByFirst: SessionEvent[] = [];
    session1.on((event) => seenByFirst.push(event));

    const second = await newProcess();
    const session2 = await second.resumeSession(session1.sessionId, {
      onPermissionRequest: approveAll,
    });
    expect(session2.sessionId).toBe(session1.sessionId);
    const history = await session2.getEvents();
    expect(history.map((event) => event.type)).toEqual([...ANSWERED_SESSION, "session.resume"]);

    fixture.model.enqueue({ text: "doubled: 4" });
    // Where the second process's prompt ends, the first client gets its idle (sendAndWait ends).
    const firstSawEnd = nextEvent(session1, (event) => event.type === "session.idle");
    const reply = await session2.sendAndWait({ prompt: "Now if you double that?" });
    expect(reply?.data.content).toBe("doubled: 4");
    // The second process's model request carried the whole conversation.
    expect(requestMessages(fixture.model, 1)).toEqual([
      expect.objectContaining({ role: "system" }),
      { role: "user", content: "What is 1+1?" },
      { role: "assistant", content: "1+1 = 2" },
      { role: "user", content: "Now if you double that?" },
    ]);

    // The first client sees every event the second process stored, in order.
    await firstSawEnd;
    const stored = await session2.getEvents();
    // Live, `session.resume` also names the model this client's session runs on.
    const resume = stored[history.length - 1];
    expect(persisted(seenByFirst)).toEqual([
      { ...resume, data: { ...resume?.data, selectedModel: "fake-model" } },
      ...stored.slice(history.length),
    ]);
    // `session.usage_info` is derived here from the usage, as for this process's own prompts.
    expect(seenByFirst.map((event) => event.type)).toEqual([
      "session.resume",
      ...LIVE_UNSTREAMED_PROMPT,
    ]);
    expect(seenByFirst.at(-1)).toMatchObject({
      ephemeral: true,
      parentId: stored.at(-1)?.id,
      data: { stopReason: "end_turn" },
    });

    // The first process takes the lease back for its next prompt, caught up with the second's.
    fixture.model.enqueue({ text: "back in the first: 8" });
    const again = await session1.sendAndWait({ prompt: "And double it again?" });
    expect(again?.data.content).toBe("back in the first: 8");
    expect(requestMessages(fixture.model, 2).slice(1)).toEqual([
      { role: "user", content: "What is 1+1?" },
      { role: "assistant", content: "1+1 = 2" },
      { role: "user", content: "Now if you double that?" },
      { role: "assistant", content: "doubled: 4" },
      { role: "user", content: "And double it again?" },
    ]);
    const log = await session1.getEvents();
    expect(log.map((event) => event.parentId)).toEqual([
      null,
      ...log.slice(0, -1).map((event) => event.id),
    ]);

    // Once the second app has gone, the first process still has the session open: it stays
    // held idle by it, and `-p --resume` is refused naming it.
    await second.stop();
    const lockFile = join(fixture.home, "session-state", session1.sessionId, "lock");
    const readLock = () => JSON.parse(readFileSync(lockFile, "utf8"));
    expect(await eventually(() => readLock().idle === true)).toBe(true);
    const { pid, command, acquiredAt } = readLock();
    const resumed = await runCli(["-p", "hello", "--resume", session1.sessionId], {
      cwd: fixture.cwd,
      env: fixture.env,
    });
    expect([resumed.code, resumed.stdout, resumed.stderr]).toEqual([
      1,
      "",
      `turnloop: Session ${session1.sessionId} is open in another process (pid ${pid}, running: ` +
        `${command}, since ${acquiredAt}); close it there first.\n`,
    ]);
    expect(fixture.model.requests).toHaveLength(3);
  });

  test("a prompt sent while the other process runs one waits for its end, then runs after it", async () => {
    const first = await newProcess();
    // Streamed, so that the fake model's pause holds the first prompt.
    const session1 = await first.createSession({
      onPermissionRequest: approveAll,
      streaming: true,
    });
    const second = await newProcess();
    const session2 = await second.resumeSession(session1.sessionId, {
      onPermissionRequest: approveAll,
    });
    const before = fixture.model.requests.length;
    const finishFirst = gate();
    fixture.model.enqueue(
      { text: ["first ", "answer"], pause: { afterEvents: 1, until: finishFirst.opened } },
      { text: "second answer" },
    );
    const firstRunning = nextEvent(session1, (event) => event.type === "assistant.turn_start");
    const firstAnswer = session1.sendAndWait({ prompt: "from the first" });
    await firstRunning;

    const secondAnswer = nextEvent(
      session2,
      (event) => event.type === "assistant.message" && event.data.content === "second answer",
    );
    const secondIdle = nextEvent(session2, (event) => event.type === "session.idle");
    await session2.send({ prompt: "from the second" });
    finishFirst.open();
    expect((await firstAnswer)?.data.content).toBe("first answer");
    await Promise.all([secondAnswer, secondIdle]);

    // The second prompt ran once the first had ended, with the whole first exchange before it.
    expect(requestMessages(fixture.model, before + 1).slice(1)).toEqual([
      { role: "user", content: "from the first" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "from the second" },
    ]);
    const log = await session2.getEvents();
    expect(log.map((event) => event.type)).toEqual([
      "session.start",
      "session.resume",
      ...Array.from({ length: 2 }, () => [
        "user.message",
        "assistant.turn_start",
        "assistant.message",
        "assistant.usage",
        "assistant.turn_end",
      ]).flat(),
    ]);
  });

  test("a name set while the other process runs a prompt reaches the first client as stored: after that prompt's events, chained to them", async () => {
    const first = await newProcess();
    const session1 = await first.createSession({ onPermissionRequest: approveAll });
    fixture.model.enqueue({ text: "2" });
    await session1.sendAndWait({ prompt: "What is 1+1?" });
    const second = await newProcess();
    const firstSawResume = nextEvent(session1, (event) => event.type === "session.resume");
    // Streamed, so that the fake model's pause holds the second prompt (and the lease).
    const session2 = await second.resumeSession(session1.sessionId, {
      onPermissionRequest: approveAll,
      streaming: true,
    });
    await firstSawResume;
    const before = (await session2.getEvents()).length;
    const seenByFirst: SessionEvent[] = [];
    session1.on((event) => seenByFirst.push(event));

    const finish = gate();
    fixture.model.enqueue({
      text: ["second ", "answer"],
      pause: { afterEvents: 1, until: finish.opened },
    });
    const secondRunning = nextEvent(session2, (event) => event.type === "assistant.turn_start");
    const secondAnswer = session2.sendAndWait({ prompt: "from the second" });
    await secondRunning;
    // The first process has let the lease go: its name waits until the second's prompt ends.
    const firstSawName = nextEvent(session1, (event) => event.type === "session.title_changed");
    const firstSawEnd = nextEvent(session1, (event) => event.type === "session.idle");
    const name = "renamed while the second ran";
    const named = session1.rpc.name.set({ name });
    // Answered once the first client was told it, stored: the name is recorded meanwhile.
    expect(await session1.rpc.name.get()).toEqual({ name });
    finish.open();
    expect(await named).toEqual({ success: true });
    expect((await secondAnswer)?.data.content).toBe("second answer");
    await Promise.all([firstSawName, firstSawEnd]);

    // The first client saw the stored events, whole and in the log's order: the name last.
    const log = await session1.getEvents();
    const stored = log.slice(before);
    expect(stored.map((event) => event.type)).toEqual([
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "assistant.turn_end",
      "session.title_changed",
    ]);
    expect(persisted(seenByFirst)).toEqual(stored);
    expect(log.map((event) => event.parentId)).toEqual([
      null,
      ...log.slice(0, -1).map((event) => event.id),
    ]);
  });

  test("resumes it from a new client with an MCP OAuth handler configured", async () => {
    const first = await newProcess();
    const session1 = await first.createSession({
      onPermissionRequest: approveAll,
      onMcpAuthRequest: () => ({ kind: "cancelled" }),
    });
    fixture.model.enqueue({ text: "2" });
    expect((await session1.sendAndWait({ prompt: "What is 1+1?" }))?.data.content).toBe("2");

    // The SDK registers its interest in `mcp.oauth_required` after `session.resume`.
    const second = await newProcess();
    const session2 = await second.resumeSession(session1.sessionId, {
      onPermissionRequest: approveAll,
      onMcpAuthRequest: () => ({ kind: "cancelled" }),
    });
    expect(session2.sessionId).toBe(session1.sessionId);
    const log = await session2.getEvents();
    expect(log.map((event) => event.type)).toEqual([...ANSWERED_SESSION, "session.resume"]);
    // Both processes read the same log.
    expect(await session1.getEvents()).toEqual(log);
  });
});
