import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Session 40 left it: `session/load` resolved the session's model before replaying its log, so an
// editor opening a past session to read it, where that model has no endpoint (the base URL the
// session ran with is not set here), got -32603 and no history. ACP v1 session-setup: load
// replays the conversation; the model is asked for only when a prompt is sent
// (/work/shared/reference/acp.md). The prompt then answers with the problem, nothing sent.

const fixture = ChildFixture.forEachTest();

test("session/load of a session whose model has no endpoint here: the log replays; a prompt answers -32603 naming the endpoint", async () => {
  const first = fixture.startAgent();
  await first.initialize();
  const sessionId = await first.newSession();
  fixture.server.enqueue({ text: "One." });
  expect(await first.prompt(sessionId, "one")).toEqual({ stopReason: "end_turn" });
  expect(await first.end()).toBe(0);
  const requests = fixture.server.requests.length;

  // No endpoint for openai-compatible:fake-model in this agent's environment.
  const agent = fixture.startAgent({ TURNLOOP_BASE_URL: "" });
  await agent.initialize();
  expect(await agent.loadSession(sessionId)).toMatchObject({ modes: expect.anything() });
  expect(agent.messageTexts(sessionId)).toEqual([
    ["user_message_chunk", "one"],
    ["agent_message_chunk", "One."],
  ]);
  const answer = await agent.prompt(sessionId, "two").then(
    () => "answered",
    (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
  );
  expect(answer).toEqual({
    code: -32603,
    message: expect.stringContaining("openai-compatible:fake-model needs an endpoint"),
  });
  expect(fixture.server.requests).toHaveLength(requests);
  // As for any model that cannot run here: said on stderr at the start, exit 64 at stdin's close
  // (test/acp/invalid-config.test.ts).
  expect(await agent.end()).toBe(64);
  expect(agent.stderr).toContain("openai-compatible:fake-model needs an endpoint");
  // The prompt that could not be sent is not in the log as sent.
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  expect(log).not.toContain('"two"');
});
