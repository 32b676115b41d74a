import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { eventsPath } from "../../src/session/paths.js";
import { Session } from "../../src/session/session.js";
import { ANSWER_TURN } from "../support/event-sequences.js";
import { completedWithText, viewOf } from "./expected-updates.js";
import { AcpHarness, normalise, requestMessages } from "./support.js";

/**
 * A golden `events.jsonl` in the order earlier versions wrote: `assistant.turn_end` before the
 * tools of its reply, a retry before its turn, and `status: "error"` for a failed turn. Such
 * logs must still load, resume and replay over ACP `session/load`.
 */
const GOLDEN = new URL("../golden/old-order-events.jsonl", import.meta.url);
const SESSION_ID = "0e1d2c3b-4a59-4687-9a0b-0c0d0e0f1a2b";

async function installGolden(current: AcpHarness): Promise<string> {
  const text = (await readFile(GOLDEN, "utf8")).replace('"<cwd>"', JSON.stringify(current.cwd));
  const path = eventsPath(current.home, SESSION_ID);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
  return path;
}

const text = (value: string) => ({ type: "text", text: value });

describe("a log written in the old turn order", () => {
  test("loads without repairs and resumes with nothing to close", async () => {
    const harness = await AcpHarness.start();
    const path = await installGolden(harness);
    const log = await readEventLog(path);
    expect(log.repaired).toEqual([]);
    expect(log.events).toHaveLength(17);
    const session = await Session.resume(new FileSessionStore(harness.home), SESSION_ID);
    try {
      // Every tool call has its result: resume adds only its own event.
      expect(session.openingEvents.map((event) => event.type)).toEqual([
        "session.start",
        "session.resume",
      ]);
      expect(session.history.messages.map((message) => message.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
      ]);
    } finally {
      await session.close();
    }
  });

  test("replays over ACP session/load, then takes a prompt with a valid history", async () => {
    const harness = await AcpHarness.start();
    await installGolden(harness);
    await writeFile(join(harness.cwd, "b.txt"), "bye\n");
    await harness.loadSession(SESSION_ID);
    const replayed = harness.updatesBefore("session/load");
    expect(normalise(replayed, harness.cwd)).toEqual([
      {
        sessionUpdate: "user_message_chunk",
        content: text("What is in a.txt?"),
        messageId: "message-1",
      },
      { sessionUpdate: "session_info_update", title: "What is in a.txt?", updatedAt: "<time>" },
      {
        sessionUpdate: "agent_message_chunk",
        content: text("Let me look."),
        messageId: "message-2",
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_old_1",
        status: "pending",
        ...viewOf("a.txt"),
      },
      completedWithText("call_old_1", "1. hello\n2."),
      {
        sessionUpdate: "agent_message_chunk",
        content: text("It says hello."),
        messageId: "message-3",
      },
      { sessionUpdate: "user_message_chunk", content: text("And b.txt?"), messageId: "message-4" },
      // The retry is replayed as it was told live, a thought (trial 27f, case 25).
      {
        sessionUpdate: "agent_thought_chunk",
        content: text("⟳ retrying in 1 s (attempt 1): HTTP 503: Service Unavailable\n"),
        messageId: "message-5",
      },
      // The prompt failed: live its answer was the error; a replay says it (trial r3s35 H3).
      {
        sessionUpdate: "agent_thought_chunk",
        content: text("✗ error: HTTP 500: boom\n"),
        messageId: "message-6",
      },
      // A replay reports the context use once, at the end.
      { sessionUpdate: "usage_update", used: 65, size: 128_000 },
    ]);

    harness.server.enqueue({ text: "It says bye." });
    expect(await harness.prompt(SESSION_ID, "Try again")).toEqual({ stopReason: "end_turn" });
    expect(
      requestMessages(harness.server, 0).map((message) => [message.role, message.content]),
    ).toEqual([
      ["system", expect.any(String)],
      ["user", "What is in a.txt?"],
      ["assistant", "Let me look."],
      ["tool", "1. hello\n2."],
      ["assistant", "It says hello."],
      ["user", "And b.txt?"],
      ["user", "Try again"],
    ]);
    // New turns are written in the new order after the old ones.
    const types = (await harness.persisted(SESSION_ID)).map((event) => event.type).slice(17);
    expect(types).toEqual(["session.resume", "user.message", ...ANSWER_TURN]);
  });
});
