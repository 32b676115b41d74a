import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

// Bodies are posted directly: the AI SDK refuses to send most of these broken histories itself,
// but the agent may build them without it (resume, repair), and the server must reject them.

let server: FakeModelServer;

beforeAll(async () => {
  server = await startFakeModelServer();
});

afterAll(async () => {
  await server.close();
});

async function post(path: string, body: object): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, ...body }),
  });
  return { status: response.status, text: await response.text() };
}

const call = (id: string, argumentsText = '{"command":"ls"}') => ({
  id,
  type: "function",
  function: { name: "shell", arguments: argumentsText },
});
const chatAssistant = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const chatTool = (id: string) => ({ role: "tool", tool_call_id: id, content: "out" });
const chatUser = { role: "user", content: "hi" };

const toolUse = (id: string, input: unknown = { command: "ls" }) => ({
  type: "tool_use",
  id,
  name: "shell",
  input,
});
const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "out" });
const anthropicUser = { role: "user", content: "hi" };

const functionCall = (id: string, argumentsText = '{"command":"ls"}') => ({
  type: "function_call",
  call_id: id,
  name: "shell",
  arguments: argumentsText,
});
const functionOutput = (id: string) => ({
  type: "function_call_output",
  call_id: id,
  output: "out",
});
const responsesUser = { role: "user", content: "hi" };

interface Case {
  name: string;
  path: string;
  body: object;
  /** undefined: the request is valid */
  error?: RegExp;
}

const cases: Case[] = [
  {
    name: "chat: unanswered tool call",
    path: "/v1/chat/completions",
    body: { messages: [chatUser, chatAssistant("call_1", "call_2"), chatTool("call_1"), chatUser] },
    error: /must be followed by tool messages .* did not have response messages: call_2/,
  },
  {
    name: "chat: result for an unknown id",
    path: "/v1/chat/completions",
    body: { messages: [chatUser, chatAssistant("call_1"), chatTool("call_1"), chatTool("call_7")] },
    error: /role 'tool' must be a response .* call_7/,
  },
  {
    name: "chat: duplicate result",
    path: "/v1/chat/completions",
    body: { messages: [chatUser, chatAssistant("call_1"), chatTool("call_1"), chatTool("call_1")] },
    error: /answered twice/,
  },
  {
    name: "chat: truncated arguments",
    path: "/v1/chat/completions",
    body: {
      messages: [
        chatUser,
        { role: "assistant", tool_calls: [call("call_1", '{"path":"a')] },
        chatTool("call_1"),
      ],
    },
    error: /function\.arguments': expected a JSON object/,
  },
  {
    name: "chat: whitespace-only assistant message",
    path: "/v1/chat/completions",
    body: { messages: [chatUser, { role: "assistant", content: " \n" }, chatUser] },
    error: /non-empty content or 'tool_calls'/,
  },
  {
    name: "chat: results in any order right after the calls",
    path: "/v1/chat/completions",
    body: {
      messages: [
        chatUser,
        chatAssistant("call_1", "call_2"),
        chatTool("call_2"),
        chatTool("call_1"),
        chatUser,
      ],
    },
  },
  {
    name: "anthropic: unanswered tool_use",
    path: "/v1/messages",
    body: {
      messages: [
        anthropicUser,
        { role: "assistant", content: [toolUse("toolu_1")] },
        anthropicUser,
      ],
    },
    error:
      /^messages\.1: tool_use ids were found without tool_result blocks immediately after: toolu_1/,
  },
  {
    name: "anthropic: tool_result after text",
    path: "/v1/messages",
    body: {
      messages: [
        anthropicUser,
        { role: "assistant", content: [toolUse("toolu_1")] },
        { role: "user", content: [{ type: "text", text: "x" }, toolResult("toolu_1")] },
      ],
    },
    error: /tool_use ids were found without tool_result blocks/,
  },
  {
    name: "anthropic: input not an object",
    path: "/v1/messages",
    body: {
      messages: [
        anthropicUser,
        { role: "assistant", content: [toolUse("toolu_1", '{"a":')] },
        { role: "user", content: [toolResult("toolu_1")] },
      ],
    },
    error: /Input should be a valid dictionary/,
  },
  {
    name: "anthropic: whitespace-only text block",
    path: "/v1/messages",
    body: {
      messages: [
        anthropicUser,
        { role: "assistant", content: [{ type: "text", text: "\n\n  " }] },
        anthropicUser,
      ],
    },
    error: /text content blocks must contain non-whitespace text/,
  },
  {
    name: "anthropic: empty content",
    path: "/v1/messages",
    body: { messages: [anthropicUser, { role: "assistant", content: [] }, anthropicUser] },
    error: /all messages must have non-empty content/,
  },
  {
    name: "anthropic: results first, then the new prompt",
    path: "/v1/messages",
    body: {
      messages: [
        anthropicUser,
        {
          role: "assistant",
          content: [{ type: "text", text: "ok" }, toolUse("toolu_1"), toolUse("toolu_2")],
        },
        {
          role: "user",
          content: [toolResult("toolu_2"), toolResult("toolu_1"), { type: "text", text: "next" }],
        },
      ],
    },
  },
  {
    name: "responses: unanswered function_call",
    path: "/v1/responses",
    body: {
      input: [
        responsesUser,
        functionCall("call_1"),
        functionCall("call_2"),
        functionOutput("call_1"),
      ],
    },
    error: /^No tool output found for function call call_2\.$/,
  },
  {
    name: "responses: output before its call",
    path: "/v1/responses",
    body: { input: [responsesUser, functionOutput("call_1"), functionCall("call_1")] },
    error: /No tool call found for function call output with call_id call_1/,
  },
  {
    name: "responses: arguments not an object",
    path: "/v1/responses",
    body: { input: [responsesUser, functionCall("call_1", "[1]"), functionOutput("call_1")] },
    error: /expected a JSON object/,
  },
  {
    name: "responses: reasoning item with an id under store false",
    path: "/v1/responses",
    body: {
      store: false,
      input: [
        responsesUser,
        { type: "reasoning", id: "rs_1", encrypted_content: "E", summary: [] },
      ],
    },
    error: /^Item with id 'rs_1' not found\. Items are not persisted when `store` is set to false/,
  },
  {
    name: "responses: reasoning without id, calls answered",
    path: "/v1/responses",
    body: {
      store: false,
      input: [
        responsesUser,
        { type: "reasoning", encrypted_content: "ENC_1", summary: [] },
        functionCall("call_1"),
        functionCall("call_2"),
        functionOutput("call_1"),
        functionOutput("call_2"),
      ],
    },
  },
];

describe("history validation", () => {
  it.each(cases)("$name", async ({ path, body, error }) => {
    server.enqueue({ text: "ok" });
    const before = server.requests.length;
    const answer = await post(path, body);
    const record = server.requests[before];
    if (error === undefined) {
      expect(answer.status, answer.text).toBe(200);
      expect(record?.validationError).toBeUndefined();
      return;
    }
    expect(answer.status).toBe(400);
    expect(record?.validationError).toMatch(error);
    expect(answer.text).toContain("invalid_request_error");
    // the rejected request left the scripted reply for the next one
    expect((await post("/v1/messages", { messages: [anthropicUser] })).status).toBe(200);
  });
});
