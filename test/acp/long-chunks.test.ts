import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { MAX_CHUNK_TEXT } from "../../src/acp/update-outbox.js";
import { ChildFixture } from "./child-process.js";

// A trial: `session/load` of a session whose prompt was 50 MB sent it as one 52 MB line, over the
// 32 MiB an ACP SDK client reads by default, and the editor's connection ended. Every message
// chunk now carries at most MAX_CHUNK_TEXT characters, a longer text going as several chunks of
// the same message. Shown here at a smaller scale: a client reading at most 2 MiB per message,
// a prompt and an answer of 2.7 M characters each (about 4 MiB of UTF-8) (of two-unit characters, so no chunk splits a pair).

const fixture = ChildFixture.forEachTest();
const CLIENT_LIMIT = 2 * MAX_CHUNK_TEXT;
const PROMPT = `${"prompt line ✓ 🙂\n".repeat(160_000)}end of prompt`;
const ANSWER = `${"answer line 🙂 ✓\n".repeat(160_000)}end of answer`;

/** The texts of `updates`' chunks of `kind`, joined per message, and how many chunks each had. */
function messages(
  updates: acp.SessionUpdate[],
  kind: "user_message_chunk" | "agent_message_chunk",
) {
  const joined = new Map<string, { text: string; chunks: number }>();
  for (const update of updates) {
    if (
      (update.sessionUpdate === "user_message_chunk" ||
        update.sessionUpdate === "agent_message_chunk") &&
      update.sessionUpdate === kind &&
      update.content.type === "text"
    ) {
      const id = update.messageId ?? "";
      const message = joined.get(id) ?? { text: "", chunks: 0 };
      joined.set(id, { text: message.text + update.content.text, chunks: message.chunks + 1 });
    }
  }
  return [...joined.values()];
}

describe("turnloop acp: long texts as chunks a client reads", () => {
  test("a 4 MiB answer live, then the 4 MiB prompt and answer replayed: whole, no message over the client's limit", async () => {
    expect(PROMPT.length).toBeGreaterThan(2 * MAX_CHUNK_TEXT);
    fixture.server.enqueue({ text: ANSWER });
    const live = fixture.startAgent({}, CLIENT_LIMIT);
    await live.initialize();
    const sessionId = await live.newSession();
    expect(await live.prompt(sessionId, PROMPT)).toEqual({ stopReason: "end_turn" });
    expect(
      messages(live.updates(sessionId), "agent_message_chunk").map(({ text }) => text),
    ).toEqual([ANSWER]);
    expect(await live.end()).toBe(0);

    const reader = fixture.startAgent({}, CLIENT_LIMIT);
    await reader.initialize();
    await reader.loadSession(sessionId);
    const updates = reader.updates(sessionId);
    const prompts = messages(updates, "user_message_chunk");
    const answers = messages(updates, "agent_message_chunk");
    expect(prompts.map(({ text }) => text)).toEqual([PROMPT]);
    expect(answers.map(({ text }) => text)).toEqual([ANSWER]);
    expect(prompts[0]?.chunks).toBe(Math.ceil(PROMPT.length / MAX_CHUNK_TEXT));
    const longest = Math.max(...reader.stdoutLines.map((line) => Buffer.byteLength(line)));
    expect(longest).toBeLessThanOrEqual(CLIENT_LIMIT);
    expect(await reader.end()).toBe(0);
    expect(reader.stderr).toBe("");
  }, 90_000);
});
