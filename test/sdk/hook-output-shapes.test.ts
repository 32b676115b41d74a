import { beforeAll, describe, expect, test } from "vitest";
import { approveAll, type TurnloopClient } from "../../src/sdk/index.js";
import { chatBody, fixtureForFile, sdkWarnings } from "./support.js";

/**
 * Round 3 session 46, lane fixsdk (trial finding F5): an answer of a hook other than `preToolUse`
 * that is not of its hook's shape (`{modifiedPrompt: 42}`, a string) is followed in no part:
 * `hook.end` records `success: false` with the problem and the answer, the prompt goes on as
 * without the hook, and `turnloop/sdk` tells the app once per hook and session with a
 * `TurnloopSdkWarning` process warning.
 */
const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

const warnings = sdkWarnings();

describe("hook answers of the wrong shape", () => {
  test("are recorded as failures, change nothing, and are told to the app once per hook", async () => {
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onSessionStart: () => ({ additionalContext: 7 }) as never,
        onUserPromptSubmitted: () => ({ modifiedPrompt: 42, additionalContext: "kept?" }) as never,
        onUserPromptTransformed: () => ({ modifiedTransformedPrompt: "replaced" }),
        onAgentStop: () => "garbage" as never,
      },
    });
    const ends: unknown[] = [];
    session.on("hook.end", (event) => {
      const { hookInvocationId: _id, ...data } = event.data;
      ends.push(data);
    });
    const from = fixture.model.requests.length;
    fixture.model.enqueue({ text: "one" }, { text: "two" });
    await session.sendAndWait({ prompt: "hello" });
    await session.sendAndWait({ prompt: "again" });
    const users = (index: number) =>
      chatBody(fixture.model.requests[index]).messages.flatMap((message) =>
        message.role === "user" ? [message.content] : [],
      );
    // userPromptTransformed's answer is of its shape: the one the model reads.
    expect([users(from), users(from + 1)]).toEqual([["replaced"], ["replaced", "replaced"]]);
    const failed = (hookType: string, output: unknown, message: string) => ({
      hookType,
      success: false,
      output,
      error: { message },
    });
    const sessionStart = failed(
      "sessionStart",
      { additionalContext: 7 },
      "additionalContext must be a string, not 7",
    );
    const promptSubmitted = failed(
      "userPromptSubmitted",
      { modifiedPrompt: 42, additionalContext: "kept?" },
      "modifiedPrompt must be a string, not 42",
    );
    const transformed = {
      hookType: "userPromptTransformed",
      success: true,
      output: { modifiedTransformedPrompt: "replaced" },
    };
    const agentStop = failed(
      "agentStop",
      "garbage",
      'its answer must be an object or nothing, not "garbage"',
    );
    expect(ends).toEqual([
      sessionStart,
      promptSubmitted,
      transformed,
      agentStop,
      promptSubmitted,
      transformed,
      agentStop,
    ]);
    expect(warnings).toEqual([
      'onSessionStart answered {"additionalContext":7}: additionalContext must be a string, not 7; the answer is ignored',
      'onUserPromptSubmitted answered {"modifiedPrompt":42,"additionalContext":"kept?"}: modifiedPrompt must be a string, not 42; the answer is ignored',
      'onAgentStop answered "garbage": its answer must be an object or nothing, not "garbage"; the answer is ignored',
    ]);
    await session.disconnect();
  });
});
