import { describe, expect, test } from "vitest";
import type { SemanticReply } from "../support/fake-model-types.js";
import { AcpHarness } from "./support.js";
import { agentTexts } from "./update-texts.js";

// Issue 11 through the ACP face: a reply that breaks after text was shown answers the prompt
// with an error and keeps the text (replayed on load); tool-call ids reused by the provider
// reach the editor as distinct ids.

describe("ACP: broken replies and reused tool-call ids", () => {
  test("a reply reset after text: an error answer, the shown text kept and replayed on load", async () => {
    let harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    // Events: role chunk, "Hel", "lo" … the connection is reset after "Hel".
    const broken: SemanticReply = { text: ["Hel", "lo"], breakAfterEvents: 2, breakBy: "reset" };
    harness.server.enqueue(broken);
    await expect(harness.prompt(sessionId, "greet")).rejects.toMatchObject({
      // The words every face uses (src/llm/errors.ts), never the HTTP layer's ("terminated").
      message:
        "The model request failed: the model's stream broke off: the connection closed before the reply was complete",
    });
    expect(agentTexts(harness.updates(sessionId))).toEqual(["Hel"]);
    const persisted = await harness.persisted(sessionId);
    expect(
      persisted.flatMap((event) => (event.type === "assistant.message" ? [event.data] : [])),
    ).toEqual([expect.objectContaining({ content: "Hel", interrupted: true })]);
    // The next prompt goes out with the shown text as history, and works.
    harness.server.enqueue({ text: "Hello again" });
    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    harness = await harness.restart();
    await harness.loadSession(sessionId);
    expect(agentTexts(harness.updates(sessionId))).toEqual(["Hel", "Hello again"]);
  });

  test("call_0 on every turn: the editor sees one tool call per id", async () => {
    const harness = await AcpHarness.start({ face: { allowAllTools: true } });
    const sessionId = await harness.newSession();
    const call = { id: "call_0", name: "glob", arguments: '{"pattern":"*.none"}' };
    harness.server.enqueue({ toolCalls: [call] }, { toolCalls: [call] }, { text: "done" });
    expect(await harness.prompt(sessionId, "look twice")).toEqual({ stopReason: "end_turn" });
    const announced = harness
      .updates(sessionId)
      .flatMap((update) => (update.sessionUpdate === "tool_call" ? [update.toolCallId] : []));
    expect(announced).toHaveLength(2);
    expect(new Set(announced).size).toBe(2);
    const finished = harness
      .updates(sessionId)
      .flatMap((update) =>
        update.sessionUpdate === "tool_call_update" && update.status === "completed"
          ? [update.toolCallId]
          : [],
      );
    expect(finished).toEqual(announced);
  });
});
