import { expect, test } from "vitest";
import { keyCutEverywhere, SPLIT_KEY, SPLIT_KEY_VARIABLE } from "../support/split-secret.js";
import { AcpHarness, normalise } from "./support.js";

/**
 * An API key of the agent's environment that the model's stream cuts across two deltas, at every
 * place (test/support/split-secret.ts), reaches the editor only whole and redacted: in its
 * `agent_thought_chunk` and `agent_message_chunk` updates, chunk by chunk.
 */
test("a key the stream cuts anywhere is shown in the chunks only whole, redacted", async () => {
  const harness = await AcpHarness.start({ env: { [SPLIT_KEY_VARIABLE]: SPLIT_KEY } });
  const sessionId = await harness.newSession();
  const answer = keyCutEverywhere("answer");
  const reasoning = keyCutEverywhere("thought");
  harness.server.enqueue({ reasoning: reasoning.pieces, text: answer.pieces });
  expect(await harness.prompt(sessionId, "Which key do you use?")).toMatchObject({
    stopReason: "end_turn",
  });
  const chunks = harness
    .updates(sessionId)
    .filter(
      (update) =>
        update.sessionUpdate === "agent_message_chunk" ||
        update.sessionUpdate === "agent_thought_chunk",
    );
  const chunk = (sessionUpdate: string) => (text: string) => ({
    sessionUpdate,
    content: { type: "text", text },
    messageId: "message-1",
  });
  expect(normalise(chunks, harness.cwd)).toEqual([
    ...reasoning.shown.map(chunk("agent_thought_chunk")),
    ...answer.shown.map(chunk("agent_message_chunk")),
  ]);
  expect(JSON.stringify(harness.wire)).not.toContain(SPLIT_KEY.slice(0, 6));
});
