import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { BADLY_TYPED_LINES } from "../support/badly-typed-lines.js";
import { ChildFixture } from "./child-process.js";

// Session 19's brief: a line whose fields are not of their declared types (an assistant.message
// without toolRequests) made `session/load` answer -32603, and `content: 5` was replayed as
// `{"type":"text","text":5}`, not valid ACP. Such lines are damaged lines: the load skips them,
// says so, and replays the rest of the session.

const fixture = ChildFixture.forEachTest();

test("session/load skips badly typed lines, says so and replays the rest", async () => {
  fixture.server.enqueue({ text: "first answer" });
  const first = fixture.startAgent();
  await first.initialize();
  const sessionId = await first.newSession();
  expect(await first.prompt(sessionId, "hello there")).toEqual({ stopReason: "end_turn" });
  expect(await first.end()).toBe(0);
  const before = (await fixture.persisted(sessionId)).length;
  const path = join(fixture.home, "session-state", sessionId, "events.jsonl");
  await appendFile(path, BADLY_TYPED_LINES.join(""));

  const agent = await fixture.agentWithSession(sessionId);
  // The notice comes with the opening updates, after the load's answer.
  await agent.waitForUpdate(sessionId, (update) => update.sessionUpdate === "agent_thought_chunk");
  const lines = BADLY_TYPED_LINES.map((_, index) => before + 1 + index).join(", ");
  const notice =
    `⚠ turnloop repaired the session log: skipped ${BADLY_TYPED_LINES.length} damaged lines ` +
    `(${lines})\n`;
  const texts = agent
    .updates(sessionId)
    .flatMap((update) =>
      update.sessionUpdate === "user_message_chunk" ||
      update.sessionUpdate === "agent_message_chunk" ||
      update.sessionUpdate === "agent_thought_chunk"
        ? [[update.sessionUpdate, update.content]]
        : [],
    );
  expect(texts).toEqual([
    ["user_message_chunk", { type: "text", text: "hello there" }],
    ["agent_message_chunk", { type: "text", text: "first answer" }],
    // A notice of turnloop's own: a thought, never the reply (src/acp/notices.ts).
    ["agent_thought_chunk", { type: "text", text: notice }],
  ]);
  fixture.server.enqueue({ text: "second answer" });
  expect(await agent.prompt(sessionId, "and again")).toEqual({ stopReason: "end_turn" });
  expect(await agent.end()).toBe(0);
});
