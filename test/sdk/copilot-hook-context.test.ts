import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { recordEvents, useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, user message composition: where the model reads a hook's `additionalContext`, as the
 * Copilot CLI puts it (the Copilot SDK's snapshots `hooks_extended/should_invoke_sessionstart_hook`
 * and `hooks_extended/should_invoke_posttoolusefailure_hook_for_failed_tool_result`), driven
 * through the official `@github/copilot-sdk` over the built CLI.
 */

const setup = useCopilotClient();

/** The messages of the fake model's request `index` without the system prompt, as `role: content`. */
function conversation(index: number): Array<{ role: string; content: unknown }> {
  return chatBody(setup.fixture.model.requests.at(index))
    .messages.filter((message) => message.role !== "system")
    .map((message) => ({ role: message.role, content: message.content ?? null }));
}

describe("hook context", () => {
  test("sessionStart's additionalContext is a user message of its own just before the first prompt", async () => {
    const { client, fixture } = setup;
    const sources: string[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onSessionStart: (input) => {
          sources.push(input.source);
          return { additionalContext: "Session start hook context." };
        },
      },
    });
    const events = recordEvents(session);
    fixture.model.enqueue({ text: "Hi!" }, { text: "Again." });
    const first = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "Say hi" });
    await session.sendAndWait({ prompt: "Say it again" });
    await session.disconnect();

    expect(sources).toEqual(["new"]);
    expect(conversation(first)).toEqual([
      { role: "user", content: "Session start hook context." },
      { role: "user", content: "Say hi" },
    ]);
    // Only before the first prompt after create.
    expect(conversation(first + 1)).toEqual([
      { role: "user", content: "Session start hook context." },
      { role: "user", content: "Say hi" },
      { role: "assistant", content: "Hi!" },
      { role: "user", content: "Say it again" },
    ]);
    const userMessages = events.flatMap((event: SessionEvent) =>
      event.type === "user.message" ? [[event.data.source, event.data.content]] : [],
    );
    expect(userMessages).toEqual([
      ["hook", "Session start hook context."],
      ["user", "Say hi"],
      ["user", "Say it again"],
    ]);
  });

  test("postToolUseFailure's additionalContext follows the failed result as Copilot's guidance message; its modifiedResult is not honoured", async () => {
    const { client, fixture } = setup;
    const failures: Array<[string, unknown]> = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onPostToolUseFailure: (input) => {
          failures.push([input.toolName, input.toolArgs]);
          return {
            additionalContext: "HOOK_FAILURE_GUIDANCE_APPLIED",
            modifiedResult: { textResultForLlm: "not used", resultType: "success" },
          } as never;
        },
      },
    });
    const events = recordEvents(session);
    fixture.model.enqueue(
      { toolCalls: [{ id: "call_view", name: "view", arguments: '{"path":"missing.txt"}' }] },
      { text: "HOOK_FAILURE_GUIDANCE_APPLIED" },
    );
    const first = fixture.model.requests.length;
    const reply = await session.sendAndWait({
      prompt: "Call the view tool with path 'missing.txt'.",
    });
    await session.disconnect();

    expect(reply?.data.content).toBe("HOOK_FAILURE_GUIDANCE_APPLIED");
    expect(failures).toEqual([["view", { path: "missing.txt" }]]);
    const completed = events.find((event) => event.type === "tool.execution_complete");
    expect(completed?.type === "tool.execution_complete" && completed.data.success).toBe(false);
    const failedText = completed?.type === "tool.execution_complete" && completed.data.error;
    const second = chatBody(fixture.model.requests.at(first + 1)).messages.filter(
      (message) => message.role !== "system",
    );
    expect(second.map((message) => [message.role, message.content ?? null])).toEqual([
      ["user", "Call the view tool with path 'missing.txt'."],
      ["assistant", null],
      ["tool", failedText === false ? "" : failedText?.message],
      [
        "user",
        'Tool "view" failed. Additional guidance from postToolUseFailure hooks:\nHOOK_FAILURE_GUIDANCE_APPLIED',
      ],
    ]);
  });
});
