import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness, requestMessages } from "./support.js";

// Case 17 over ACP, the two tests errors.test.ts leaves out: a provider's 400 (not retried) and a
// failure after tool work was done. The prompt is answered with a JSON-RPC error carrying the
// status and the provider's message, never a clean end_turn; nothing of the failure is sent or
// stored as the model's reply; the next prompt works on a valid history.

/** The agent message text the session's updates carry, in order. */
function replyTexts(harness: AcpHarness, sessionId: string): string[] {
  return harness
    .updates(sessionId)
    .flatMap((update) =>
      update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    );
}

/** The event types of `sessionId`'s log, with the data of turn ends and errors (ids left out). */
async function stored(harness: AcpHarness, sessionId: string): Promise<unknown[]> {
  return (await harness.persisted(sessionId)).map((event) => {
    if (event.type === "assistant.turn_end") {
      const { turnId: _turnId, ...data } = event.data;
      return [event.type, data];
    }
    return event.type === "session.error" ? [event.type, event.data] : event.type;
  });
}

describe("case 17 over ACP: a failed model call is an error, not end_turn", () => {
  test("test 2: a 400 'model does not exist' fails the prompt at once with the status and message; the next prompt works", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue(
      { status: 400, body: { error: { message: "model 'x' does not exist" } } },
      { text: "fine" },
    );
    const sessionId = await harness.newSession();
    const failure = await harness.prompt(sessionId, "hi").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(acp.RequestError);
    expect(failure).toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^The model request failed: .*HTTP 400: model 'x' does not exist/,
      ),
      data: { errorType: "invalid_request", statusCode: 400 },
    });
    // Not retried: one request, one failed turn, the error after it; no assistant message.
    expect(harness.server.requests).toHaveLength(1);
    expect(replyTexts(harness, sessionId)).toEqual([]);
    expect(await stored(harness, sessionId)).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      ["assistant.turn_end", { status: "failed", errorType: "invalid_request" }],
      [
        "session.error",
        {
          errorType: "invalid_request",
          message: "HTTP 400: model 'x' does not exist",
          statusCode: 400,
        },
      ],
    ]);
    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(replyTexts(harness, sessionId)).toEqual(["fine"]);
    expect(requestMessages(harness.server, -1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "user",
    ]);
  });

  test("test 4: a tool call ran, then every request fails: the call and its result stay, the prompt fails, the next prompt works", async () => {
    const harness = await AcpHarness.start();
    const boom = { status: 500, body: { error: { message: "boom" } } };
    const echo = { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "echo a" }) };
    // The harness allows one retry: two failures are every request after the tool call.
    harness.server.enqueue({ toolCalls: [echo] }, boom, boom, { text: "fine" });
    const sessionId = await harness.newSession();
    const failure = await harness.prompt(sessionId, "run echo a").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(acp.RequestError);
    expect(failure).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^The model request failed: .*HTTP 500: boom/),
      data: { errorType: "server", statusCode: 500 },
    });
    const statuses = harness
      .updates(sessionId)
      .flatMap((update) =>
        (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
        typeof update.status === "string"
          ? [update.status]
          : [],
      );
    expect(statuses).toEqual(["pending", "in_progress", "completed"]);
    expect(replyTexts(harness, sessionId)).toEqual([]);
    // The tool's turn whole, then the failed attempts, the error last.
    expect(await stored(harness, sessionId)).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      "assistant.message",
      "assistant.usage",
      "tool.execution_start",
      "permission.requested",
      "permission.completed",
      "tool.execution_complete",
      ["assistant.turn_end", { status: "completed", finishReason: "tool-calls" }],
      "assistant.turn_start",
      ["assistant.turn_end", { status: "failed", errorType: "server" }],
      "assistant.retry",
      "assistant.turn_start",
      ["assistant.turn_end", { status: "failed", errorType: "server" }],
      ["session.error", { errorType: "server", message: "HTTP 500: boom", statusCode: 500 }],
    ]);
    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    // A valid history: the call, its result, then the new prompt; nothing of the failure.
    expect(requestMessages(harness.server, -1).slice(1)).toEqual([
      { role: "user", content: "run echo a" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "bash", arguments: echo.arguments } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "a\n<exited with exit code 0>" },
      { role: "user", content: "again" },
    ]);
  });
});
