import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  approveAll,
  type CopilotClient,
  type CopilotSession,
  defineTool,
  type SessionEvent,
  ToolSet,
} from "@github/copilot-sdk";
import { beforeAll, describe, expect, test } from "vitest";
import { stdioEntry } from "../support/mcp/servers.js";
import { callingTools } from "../support/replies.js";
import {
  askColour,
  type ChatBody,
  chatBody,
  fixtureForFile,
  recordEvents,
  startCopilotClient,
} from "./support.js";

/**
 * Issue 25, the core causes: what an app written for the official `@github/copilot-sdk` sees when
 * turnloop is its CLI, one test per cause, driving the built CLI against the fake model.
 */

const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  client = await startCopilotClient(fixture);
});

/** The tool names of the first model request of one prompt. */
async function offeredNames(session: CopilotSession): Promise<string[]> {
  const from = fixture.model.requests.length;
  fixture.model.enqueue({ text: "ok" });
  await session.sendAndWait({ prompt: "list" });
  return (chatBody(fixture.model.requests[from]).tools ?? []).map((tool) => tool.function.name);
}

describe("tool sets", () => {
  test("builtin:, custom: and mcp: qualifiers, <source>:*, bare names, and the default agent's excludedTools", async () => {
    const lookup = defineTool("lookup", { parameters: { type: "object" }, handler: () => "x" });
    const fetchIt = defineTool("fetch_it", { parameters: { type: "object" }, handler: () => "y" });
    const tools = [lookup, fetchIt];
    const mcpServers = { files: { type: "local" as const, ...stdioEntry(), tools: ["echo"] } };
    const cases: Array<[string, Parameters<CopilotClient["createSession"]>[0], string[]]> = [
      [
        "custom:* and one built-in",
        { tools, availableTools: new ToolSet().addCustom("*").addBuiltIn("view") },
        ["view", "lookup", "fetch_it"],
      ],
      [
        "builtin:* minus a custom tool and a built-in",
        { tools, availableTools: ["builtin:*", "custom:lookup"], excludedTools: ["builtin:bash"] },
        ["view", "create", "edit", "grep", "glob", "update_plan", "lookup"],
      ],
      [
        "a qualifier names only its source",
        { tools, availableTools: ["custom:view", "builtin:lookup", "mcp:lookup", "grep"] },
        ["grep"],
      ],
      [
        "mcp:* and Copilot's <server>-<tool> name",
        { tools, mcpServers, availableTools: ["mcp:*", "custom:*"], excludedTools: ["mcp:nope"] },
        ["lookup", "fetch_it", "files-echo"],
      ],
      [
        "mcp:<server>-<tool>",
        { mcpServers, availableTools: ["mcp:files-echo", "files"] },
        ["files-echo"],
      ],
      [
        "the default agent's excludedTools",
        { tools, defaultAgent: { excludedTools: ["lookup", "bash", "edit", "create"] } },
        ["view", "grep", "glob", "update_plan", "fetch_it"],
      ],
    ];
    const seen: Array<[string, string[]]> = [];
    for (const [name, config] of cases) {
      const session = await client.createSession({ onPermissionRequest: approveAll, ...config });
      seen.push([name, await offeredNames(session)]);
      await session.disconnect();
    }
    expect(seen).toEqual(cases.map(([name, , expected]) => [name, expected]));
  });
});

function record(session: CopilotSession): SessionEvent[] {
  const events = recordEvents(session);
  return events;
}

const provider = () => ({
  type: "openai" as const,
  baseUrl: `${fixture.model.url}/v1`,
  apiKey: "dummy",
});

describe("model names", () => {
  test("bare ids in session.start, model_change, usage, getCurrent and the log; the effort switch; typed models.list", async () => {
    const opening: SessionEvent[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      model: "gpt-5.4",
      provider: provider(),
      onEvent: (event) => opening.push(event),
    });
    // Copilot's required `copilotVersion` (turnloop's) and its `context: {cwd}`.
    const start = { selectedModel: "gpt-5.4", copilotVersion: expect.any(String) };
    const context = { cwd: fixture.cwd };
    expect(opening.filter((event) => event.type === "session.start").map((e) => e.data)).toEqual([
      expect.objectContaining({ ...start, context }),
    ]);
    const events = record(session);
    fixture.model.enqueue({ text: "one" }, { text: "two" });
    await session.sendAndWait({ prompt: "hi" });
    expect(await session.rpc.model.setReasoningEffort({ reasoningEffort: "low" })).toEqual({
      reasoningEffort: "low",
    });
    const from = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "again" });
    const sent = fixture.model.requests[from]?.body as { reasoning_effort?: string } & ChatBody;
    expect(sent.reasoning_effort).toBe("low");
    expect(sent.messages[0]?.role).toBe("system");
    expect(await session.rpc.model.getCurrent()).toEqual({
      modelId: "gpt-5.4",
      reasoningEffort: "low",
    });
    const named = events.flatMap((event) => {
      switch (event.type) {
        case "assistant.usage":
          return [[event.type, event.data.model]];
        case "session.model_change":
          return [[event.type, event.data.previousModel, event.data.newModel]];
        default:
          return [];
      }
    });
    expect(named).toEqual([
      ["assistant.usage", "gpt-5.4"],
      ["session.model_change", "gpt-5.4", "gpt-5.4"],
      ["assistant.usage", "gpt-5.4"],
    ]);
    const logged = await session.getEvents();
    expect(logged[0]).toMatchObject({ type: "session.start", data: { ...start, context } });
    await session.disconnect();
    const models = await client.listModels();
    expect(models).toEqual([
      {
        id: "fake-model",
        name: "fake-model",
        capabilities: {
          supports: { vision: false, reasoningEffort: true },
          limits: { max_context_window_tokens: expect.any(Number) },
        },
        policy: { state: "enabled", terms: "" },
        supportedReasoningEfforts: ["low", "medium", "high"],
        defaultReasoningEffort: "medium",
      },
    ]);
  });
});

describe("events and fields", () => {
  test("user.message keeps attachments and agentMode; usage_info has the context and the window; mode.set announces session.updated", async () => {
    await writeFile(join(fixture.cwd, "noted.txt"), "noted\n");
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const updated = new Promise<string>((resolve) =>
      client.onLifecycle("session.updated", (event) => resolve(event.sessionId)),
    );
    await session.rpc.mode.set({ mode: "autopilot" });
    expect(await updated).toBe(session.sessionId);
    const events = record(session);
    fixture.model.enqueue({ text: "ok" });
    const attachment = { type: "file" as const, path: join(fixture.cwd, "noted.txt") };
    await session.sendAndWait({ prompt: "Look.", attachments: [attachment], agentMode: "plan" });
    const user = events.find((event) => event.type === "user.message");
    expect(user?.data).toMatchObject({ attachments: [attachment], agentMode: "plan" });
    const logged = (await session.getEvents()).find((event) => event.type === "user.message");
    expect(logged?.data).toEqual(user?.data);
    const usage = events.find((event) => event.type === "assistant.usage");
    const info = events.find((event) => event.type === "session.usage_info");
    const [model] = await client.listModels();
    expect(info?.type === "session.usage_info" && info.data).toMatchObject({
      tokenLimit: model?.capabilities.limits.max_context_window_tokens,
      messagesLength: 2,
    });
    // Always ephemeral in Copilot's type (`ephemeral: true`).
    expect(usage?.ephemeral).toBe(true);
    const used = usage?.type === "assistant.usage" ? usage.data : undefined;
    const current = info?.type === "session.usage_info" ? info.data.currentTokens : 0;
    expect(current).toBeGreaterThanOrEqual((used?.inputTokens ?? 1) + (used?.outputTokens ?? 1));
    await session.disconnect();
  });
});

describe("tool result texts", () => {
  test("Copilot's words: a throwing handler without its message, an edit without a diff, an interrupted call", async () => {
    const path = join(fixture.cwd, "edited.txt");
    await writeFile(path, "one\ntwo\n");
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const tools = [
      defineTool("get_user_location", {
        parameters: { type: "object" },
        handler: () => {
          throw new Error("Melbourne");
        },
      }),
      defineTool("wait_forever", {
        parameters: { type: "object" },
        handler: () => {
          started();
          return new Promise(() => undefined);
        },
      }),
    ];
    const session = await client.createSession({ onPermissionRequest: approveAll, tools });
    const events = record(session);
    const from = fixture.model.requests.length;
    fixture.model.enqueue(
      {
        toolCalls: [
          { id: "call_where", name: "get_user_location", arguments: "{}" },
          {
            id: "call_edit",
            name: "edit",
            arguments: JSON.stringify({ path, old_str: "two", new_str: "2" }),
          },
        ],
      },
      { text: "unknown" },
      { toolCalls: [{ id: "call_wait", name: "wait_forever", arguments: "{}" }] },
      { text: "recovered" },
    );
    await session.sendAndWait({ prompt: "Where am I? Then edit." });
    await session.send({ prompt: "Wait." });
    await running;
    await session.abort();
    await session.sendAndWait({ prompt: "Go on." });
    const toolMessages = (index: number) =>
      chatBody(fixture.model.requests[from + index]).messages.flatMap((message) =>
        message.role === "tool" ? [[message.tool_call_id, message.content]] : [],
      );
    expect(toolMessages(3)).toEqual([
      [
        "call_where",
        "Failed to execute `get_user_location` tool with arguments: {} due to error: Error: Tool execution failed",
      ],
      ["call_edit", `File ${path} updated with changes.`],
      ["call_wait", "The execution of this tool, or a previous tool was interrupted."],
    ]);
    const failure = events.find(
      (event) => event.type === "tool.execution_complete" && event.data.toolCallId === "call_where",
    );
    expect(failure?.type === "tool.execution_complete" && failure.data.error?.message).toBe(
      "Melbourne",
    );
    await session.disconnect();
  });
});

describe("hooks", () => {
  test("preToolUse and postToolUseFailure run for a call of a tool that does not exist, around its start", async () => {
    const asked: Array<[string, unknown]> = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onPreToolUse: (input) => {
          asked.push([input.toolName, input.toolArgs]);
          return { permissionDecision: "allow" };
        },
      },
    });
    const events = recordEvents(session);
    const from = fixture.model.requests.length;
    fixture.model.enqueue(callingTools(["call_x", "no_such_tool", { q: 1 }]), {
      text: "That tool is missing.",
    });
    await session.sendAndWait({ prompt: "use it" });

    expect(asked).toEqual([["no_such_tool", { q: 1 }]]);
    const around = events
      .filter((event) => event.type.startsWith("hook.") || event.type.startsWith("tool."))
      .map((event) =>
        event.type === "tool.execution_complete"
          ? [event.type, event.data.success, event.data.result?.content]
          : event.type === "hook.start" || event.type === "hook.end"
            ? [event.type, event.data.hookType]
            : [event.type],
      );
    const names = (chatBody(fixture.model.requests[from]).tools ?? []).map(
      (tool) => tool.function.name,
    );
    const missing = `Tool 'no_such_tool' does not exist. Available tools that can be called are ${names.join(", ")}.`;
    expect(around).toEqual([
      ["hook.start", "sessionStart"],
      ["hook.end", "sessionStart"],
      ["hook.start", "userPromptSubmitted"],
      ["hook.end", "userPromptSubmitted"],
      ["hook.start", "userPromptTransformed"],
      ["hook.end", "userPromptTransformed"],
      ["hook.start", "preToolUse"],
      ["hook.end", "preToolUse"],
      ["tool.execution_start"],
      ["hook.start", "postToolUseFailure"],
      ["hook.end", "postToolUseFailure"],
      ["tool.execution_complete", false, missing],
      ["hook.start", "agentStop"],
      ["hook.end", "agentStop"],
    ]);
    const toolMessage = chatBody(fixture.model.requests[from + 1]).messages.find(
      (message) => message.role === "tool",
    );
    expect(toolMessage?.content).toBe(missing);
    await session.disconnect();
  });
});

describe("extended families", () => {
  test("ask_user goes to the app's user-input handler, and is offered only with one", async () => {
    const asked: unknown[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      onUserInputRequest: (request) => {
        asked.push(request);
        return { answer: "blue", wasFreeform: false };
      },
    });
    const { reply, offered, results } = await askColour(fixture, session);
    expect(reply).toBe("Blue it is.");
    expect(asked).toEqual([{ question: "Which colour?", choices: ["red", "blue"] }]);
    expect(offered).toContain("ask_user");
    expect(results).toEqual([["call_ask", "blue"]]);
    await session.disconnect();
    const without = await client.createSession({ onPermissionRequest: approveAll });
    expect(await offeredNames(without)).not.toContain("ask_user");
    await without.disconnect();
  });
});
