import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Trial 27f, finding 5: an agent killed -9 while a permission question was pending left
// `permission.requested` unanswered in the log, and the repair on the next load gave the call
// "Interrupted: … it may have partly run", though it never started. A live cancel there says
// "Not run" (case 04); the repair (src/session/open-work.ts) says so too, then said "the prompt
// was cancelled", which nobody did (session 28): it now says what happened.

const NOT_RUN = "Not run: turnloop stopped before the permission question was answered.";

describe("an agent killed while a permission question is pending", () => {
  const fixture = ChildFixture.forEachTest();

  test("the reloaded call says Not run, in the log and in the replay", async () => {
    const command = "touch ran";
    fixture.server.enqueue({
      toolCalls: [{ id: "call_P", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    const agent = fixture.startAgent();
    agent.behaviour.answerPermission = () => new Promise(() => {});
    await agent.initialize();
    const sessionId = await agent.newSession();
    agent.prompt(sessionId, "run it").catch(() => {});
    await agent.waitUntil(
      () => agent.behaviour.calls.some((call) => call.method === "session/request_permission"),
      "the permission question",
    );
    await agent.kill();

    const reloaded = await fixture.agentWithSession(sessionId);
    const results = (await fixture.persisted(sessionId))
      .filter((event) => event.type === "tool.execution_complete")
      .map((event) => event.data);
    expect(results).toEqual([
      {
        toolCallId: "call_P",
        toolName: "bash",
        success: false,
        result: { content: NOT_RUN },
        error: { message: NOT_RUN, code: "interrupted" },
      },
    ]);
    const replayed = reloaded
      .updates(sessionId)
      .filter((update) => update.sessionUpdate === "tool_call_update");
    expect(JSON.stringify(replayed)).toContain(NOT_RUN);
    expect(JSON.stringify(replayed)).not.toContain("partly run");
    await reloaded.end();
  });
});
