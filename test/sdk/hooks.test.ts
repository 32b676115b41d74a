import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { HookType, SessionEvent } from "../../src/events/events.js";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import type { PermissionRequest, TurnloopClient, TurnloopSession } from "../../src/sdk/index.js";
import { dataOf } from "../llm/helpers.js";
import { type CallOf, callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, recordEvents, requestMessages } from "./support.js";

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/** `[hookType, success]` of each `hook.end`, in order. */
function hookEnds(events: readonly WireEvent[]): Array<[HookType, boolean]> {
  return events.flatMap((event) =>
    event.type === "hook.end"
      ? [[event.data.hookType, event.data.success] as [HookType, boolean]]
      : [],
  );
}

/** A permission handler that approves each request once, keeping it in `asked`. */
function approvingOnce(asked: PermissionRequest[]) {
  return (request: PermissionRequest) => {
    asked.push(request);
    return { kind: "approve-once" as const };
  };
}

/** Prompts "go" on a model that calls `calls` in one reply, then answers "done"; waits for idle. */
async function goCalling(session: TurnloopSession, ...calls: CallOf[]): Promise<void> {
  fixture.model.enqueue(callingTools(...calls), { text: "done" });
  await session.sendAndWait({ prompt: "go" });
}

describe("hooks through hooks.invoke", () => {
  test("prompt, tool, agentStop and sessionEnd hooks change what the model sees, in order", async () => {
    await writeFile(join(fixture.cwd, "notes.txt"), "notes\n");
    await writeFile(join(fixture.cwd, "other.txt"), "other\n");
    const calls: Array<[string, unknown]> = [];
    let stops = 0;
    const session = await client.createSession({
      hooks: {
        onSessionStart: (input) => {
          calls.push(["sessionStart", [input.source, input.initialPrompt]]);
          return { additionalContext: "(from sessionStart)" };
        },
        onUserPromptSubmitted: (input) => {
          calls.push(["userPromptSubmitted", input.prompt]);
          return { modifiedPrompt: "Read notes.txt", additionalContext: "(from the hook)" };
        },
        onUserPromptTransformed: (input) => {
          calls.push(["userPromptTransformed", [input.prompt, input.transformedPrompt]]);
          return { modifiedTransformedPrompt: `${input.transformedPrompt} (transformed)` };
        },
        onPreToolUse: (input) => {
          calls.push(["preToolUse", [input.toolName, input.toolArgs]]);
          return { modifiedArgs: { path: "other.txt" }, additionalContext: "(pre)" };
        },
        onPostToolUse: (input) => {
          calls.push(["postToolUse", input.toolResult.textResultForLlm]);
          return { additionalContext: "(post)" };
        },
        onAgentStop: (input) => {
          calls.push(["agentStop", [input.stopReason, input.stop_hook_active]]);
          stops += 1;
          return stops === 1 ? { decision: "block", reason: "Now say bye." } : undefined;
        },
        onSessionEnd: (input) => {
          calls.push(["sessionEnd", input.reason]);
          return undefined;
        },
      },
    });
    const _events = recordEvents(session);
    fixture.model.enqueue(
      callingTools(["call_v", "view", { path: "notes.txt" }]),
      { text: "It says other." },
      { text: "Bye." },
    );
    const reply = await session.sendAndWait({ prompt: "read it" });
    // The follow-up ran before idle: sendAndWait waited for it.
    expect(reply?.data.content).toBe("Bye.");
    await session.disconnect();
    expect(calls).toEqual([
      ["sessionStart", ["new", "read it"]],
      ["userPromptSubmitted", "read it"],
      ["userPromptTransformed", ["Read notes.txt", "Read notes.txt\n\n(from the hook)"]],
      ["preToolUse", ["view", { path: "notes.txt" }]],
      ["postToolUse", "1. other\n\n(pre)"],
      ["agentStop", ["end_turn", false]],
      ["agentStop", ["end_turn", true]],
      ["sessionEnd", "user_exit"],
    ]);
    const first = requestMessages(fixture.model, -3).filter((message) => message.role === "user");
    expect(first.map((message) => message.content)).toEqual([
      "(from sessionStart)",
      "Read notes.txt\n\n(from the hook) (transformed)",
    ]);
    const tool = requestMessages(fixture.model, -2).find((message) => message.role === "tool");
    expect(tool?.content).toBe("1. other\n\n(pre)\n\n(post)");
    const last = requestMessages(fixture.model, -1).at(-1);
    expect(last).toEqual({ role: "user", content: "Now say bye." });

    // Disconnected, the session cannot be read over the wire any more (Copilot: "Session not
    // found"); its log on disk has every event, the sessionEnd hook's included.
    await expect(session.getMessages()).rejects.toThrow(/Session not found/);
    const persisted = (
      await readFile(join(fixture.home, "session-state", session.sessionId, "events.jsonl"), "utf8")
    )
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionEvent);
    expect(
      persisted
        .map((event) => event.type)
        .filter((type) => type !== "assistant.usage" && type !== "assistant.turn_start"),
    ).toEqual([
      "session.start",
      "hook.start",
      "hook.end",
      "user.message",
      "hook.start",
      "hook.end",
      "hook.start",
      "hook.end",
      "user.message",
      "assistant.message",
      "hook.start",
      "hook.end",
      "tool.execution_start",
      "hook.start",
      "hook.end",
      "tool.execution_complete",
      "assistant.turn_end",
      "assistant.message",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
      "user.message",
      "assistant.message",
      "assistant.turn_end",
      "hook.start",
      "hook.end",
      "hook.start",
      "hook.end",
      "session.shutdown",
    ]);
    expect(hookEnds(persisted)).toEqual([
      ["sessionStart", true],
      ["userPromptSubmitted", true],
      ["userPromptTransformed", true],
      ["preToolUse", true],
      ["postToolUse", true],
      ["agentStop", true],
      ["agentStop", true],
      ["sessionEnd", true],
    ]);
    const userMessages = persisted.flatMap((event) =>
      event.type === "user.message" ? [event.data.source] : [],
    );
    expect(userMessages).toEqual(["hook", "user", "hook"]);
  });

  test("preToolUse deny / allow / ask, postToolUseFailure, and errorOccurred when the model fails", async () => {
    const asked: PermissionRequest[] = [];
    const errors: string[] = [];
    const failures: string[] = [];
    const session = await client.createSession({
      onPermissionRequest: approvingOnce(asked),
      hooks: {
        onPreToolUse: (input) => {
          if (input.toolName === "view") {
            return { permissionDecision: input.toolArgs.path === "missing.txt" ? "allow" : "ask" };
          }
          if (String(input.toolArgs.command).includes("denied")) {
            return { permissionDecision: "deny", permissionDecisionReason: "no such commands" };
          }
          return { permissionDecision: "allow" };
        },
        onPostToolUseFailure: (input) => {
          failures.push(input.toolName);
          return { additionalContext: "(check the path)" };
        },
        onErrorOccurred: (input) => {
          errors.push(`${input.errorContext}: ${input.error}`);
          return undefined;
        },
      },
    });
    const events = recordEvents(session);
    await goCalling(
      session,
      ["call_deny", "bash", { command: "echo denied" }],
      ["call_allow", "bash", { command: "echo fine" }],
      ["call_ask", "view", { path: "." }],
      ["call_missing", "view", { path: "missing.txt" }],
    );
    const results = dataOf(events, "tool.execution_complete");
    expect(results.map((result) => [result.toolCallId, result.success])).toEqual([
      ["call_deny", false],
      ["call_allow", true],
      ["call_ask", true],
      ["call_missing", false],
    ]);
    expect(failures).toEqual(["view"]);
    const missing = events.find(
      (event) =>
        event.type === "tool.execution_complete" && event.data.toolCallId === "call_missing",
    );
    expect(missing?.type === "tool.execution_complete" && missing.data.result.content).not.toMatch(
      /check the path/,
    );
    // The failure hook's guidance follows the batch's results as a user message (Copilot's words).
    const guidance = events.filter(
      (event) => event.type === "user.message" && event.data.source === "hook",
    );
    expect(guidance.map((event) => event.type === "user.message" && event.data.content)).toEqual([
      'Tool "view" failed. Additional guidance from postToolUseFailure hooks:\n(check the path)',
    ]);
    const denied = events.find(
      (event) => event.type === "tool.execution_complete" && event.data.toolCallId === "call_deny",
    );
    expect(denied?.data).toMatchObject({
      result: {
        content: "Permission denied for 'bash': Denied by preToolUse hook: no such commands",
      },
    });
    // allow skipped the handler; ask asked even for a read inside the cwd.
    expect(asked.map((request) => [request.toolCallId, request.kind])).toEqual([
      ["call_ask", "read"],
    ]);

    fixture.model.enqueue({ status: 500, body: { error: { message: "the model is down" } } });
    const idle = nextEvent(session, (event) => event.type === "session.idle");
    await expect(session.sendAndWait({ prompt: "again" })).rejects.toThrow(/model is down/);
    // The hook is asked before the failure ends the prompt (its session.error ends sendAndWait).
    await idle;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^model_call: /);
    expect(
      hookEnds(events)
        .map(([type]) => type)
        .slice(-1),
    ).toEqual(["errorOccurred"]);
  });

  test("modifiedArgs are what the permission question shows and what runs; tool.execution_start keeps the original", async () => {
    await writeFile(join(fixture.cwd, "kept.txt"), "kept\n");
    const asked: PermissionRequest[] = [];
    const session = await client.createSession({
      onPermissionRequest: approvingOnce(asked),
      hooks: {
        onPreToolUse: (input) => {
          if (input.toolName !== "bash") {
            return undefined;
          }
          return input.toolArgs.command === "echo first"
            ? {
                modifiedArgs: { command: "echo rewritten" },
                permissionDecision: "deny",
                additionalContext: "(only for the first call)",
              }
            : { modifiedArgs: { command: "echo rewritten" }, permissionDecision: "ask" };
        },
      },
    });
    const events = recordEvents(session);
    await goCalling(
      session,
      ["call_first", "bash", { command: "echo first" }],
      ["call_second", "bash", { command: "echo second" }],
    );
    const starts = dataOf(events, "tool.execution_start");
    expect(starts.map((start) => [start.toolCallId, start.arguments])).toEqual([
      ["call_first", { command: "echo first" }],
      ["call_second", { command: "echo second" }],
    ]);
    expect(asked.map((request) => [request.toolCallId, request.fullCommandText])).toEqual([
      ["call_second", "echo rewritten"],
    ]);
    const results = dataOf(events, "tool.execution_complete");
    // The denied call's context went nowhere; the second call ran the rewritten command.
    expect(results.map((result) => result.result.content)).toEqual([
      "Permission denied for 'bash': Denied by preToolUse hook: No reason provided",
      "rewritten\n<exited with exit code 0>",
    ]);
    await session.disconnect();
  });
});
