import { createOpenAI } from "@ai-sdk/openai";
import { APICallError } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { gate } from "../support/gate.js";
import { clientNamed, clients, run, toolResult, user } from "./sdk-clients.js";

let server: FakeModelServer;

beforeEach(async () => {
  server = await startFakeModelServer();
});

afterEach(async () => {
  await server.close();
});

/** A streamed OpenAI Chat request to the server, "hi" from the user, by plain fetch. */
function streamedChatRequest(): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }),
  });
}

/** The same request without `stream: true`: one JSON body. */
function unstreamedChatRequest(): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });
}

/** The part of an OpenAI Chat completion body these tests read. */
interface ChatCompletion {
  choices: Array<{ message: { content: string } }>;
}

function expectApiError(error: unknown, statusCode: number): APICallError {
  expect(APICallError.isInstance(error)).toBe(true);
  const apiError = error as APICallError;
  expect(apiError.statusCode).toBe(statusCode);
  return apiError;
}

describe.each(clients)("$name parses what the server sends", (client) => {
  it("streams reasoning, text pieces, a tool call with split arguments and usage", async () => {
    server.enqueue({
      reasoning: ["Let me ", "look."],
      reasoningSignature: "sig-1",
      text: ["Checking ", "the dir."],
      toolCalls: [{ id: "call_1", name: "shell", arguments: ['{"comm', 'and":"ls', '"}'] }],
      usage: { input: 120, output: 30, cacheRead: 20, reasoning: 7 },
    });
    const result = await run(client.model(server.url), { messages: [user("list")] });
    expect(result.errors).toEqual([]);
    expect(result.text).toBe("Checking the dir.");
    // the official OpenAI chat client ignores the non-standard reasoning_content field
    expect(result.reasoning).toBe(client.name === "openai .chat" ? "" : "Let me look.");
    expect(result.toolCalls).toEqual([
      { toolCallId: "call_1", toolName: "shell", input: { command: "ls" } },
    ]);
    expect(result.finishReason).toBe("tool-calls");
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    if (client.name !== "openai-compatible") {
      expect(result.usage).toMatchObject({ inputTokenDetails: { cacheReadTokens: 20 } });
    }
    expect(server.requests.map((request) => [request.wire, request.status])).toEqual([
      [client.wire, 200],
    ]);
  });

  it("reports finish length and content filter in the wire's own terms", async () => {
    server.enqueue({ text: "cut", finish: "length" }, { text: "no", finish: "content_filter" });
    const length = await run(client.model(server.url), { messages: [user("a")] });
    const filtered = await run(client.model(server.url), { messages: [user("b")] });
    expect([length.finishReason, filtered.finishReason]).toEqual(["length", "content-filter"]);
  });

  it("sends no usage when told (Anthropic: zeros, which its stream schema requires)", async () => {
    server.enqueue({ text: "hi", usage: null });
    const result = await run(client.model(server.url), { messages: [user("hi")] });
    expect(result.errors).toEqual([]);
    const expected = client.wire === "anthropic" ? 0 : undefined;
    expect(result.usage).toMatchObject({ inputTokens: expected, outputTokens: expected });
  });

  it("sends multi-byte text split inside characters intact", async () => {
    await server.close();
    server = await startFakeModelServer({ splitBytes: 3 });
    const text = "héllo wörld — 日本語 🎉";
    server.enqueue({ text: [text.slice(0, 9), text.slice(9)] });
    const result = await run(client.model(server.url), { messages: [user("hi")] });
    expect(result.text).toBe(text);
  });

  it("exposes an error status and its headers to the SDK", async () => {
    server.enqueue({
      status: 429,
      headers: { "retry-after": "2" },
      body: { error: { message: "slow down" } },
    });
    const result = await run(client.model(server.url), { messages: [user("hi")] });
    const error = expectApiError(result.errors[0], 429);
    expect(error.responseHeaders?.["retry-after"]).toBe("2");
    expect(server.requests[0]?.status).toBe(429);
  });

  it("accepts a history whose tool calls are answered (the SDK itself refuses unanswered ones)", async () => {
    server.enqueue(
      { toolCalls: [{ id: "call_9", name: "shell", arguments: '{"command":"ls"}' }] },
      { text: "ok" },
    );
    const first = await run(client.model(server.url), { messages: [user("list")] });
    const unanswered = await run(client.model(server.url), {
      messages: [user("list"), ...first.responseMessages, user("again")],
    });
    // AI SDK v6 throws MissingToolResultsError before sending, so the server never sees this one
    expect(unanswered.errors[0]).toMatchObject({ name: "AI_MissingToolResultsError" });
    const answered = [
      user("list"),
      ...first.responseMessages,
      toolResult("call_9", "shell", "a.txt"),
      user("again"),
    ];
    const accepted = await run(client.model(server.url), { messages: answered });
    expect(accepted.text).toBe("ok");
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  it("stalls after some events until the client gives up", async () => {
    // the events before and including the first text delta, per wire
    const eventsUntilFirstText = { "openai-chat": 2, "openai-responses": 4, anthropic: 4 }[
      client.wire
    ];
    server.enqueue({ text: ["thinking about", " more"], stallAfterEvents: eventsUntilFirstText });
    const controller = new AbortController();
    const result = await run(client.model(server.url), {
      messages: [user("hi")],
      abortSignal: controller.signal,
      onText: () => controller.abort(),
    });
    expect(result.text).toBe("thinking about");
    await expect.poll(() => server.requests[0]?.clientClosed).toBe(true);
  });
});

describe("fake model server", () => {
  it("answers 500 when no scripted reply is left", async () => {
    const result = await run(clientNamed("anthropic").model(server.url), {
      messages: [user("hi")],
    });
    expectApiError(result.errors[0], 500);
    expect(server.requests[0]?.status).toBe(500);
  });

  it("writes raw pieces as separate writes the client reads apart", async () => {
    server.enqueue({
      raw: ["data: a\n", { holdMs: 5 }, Buffer.from([0xc3]), Buffer.from([0xa9, 0x0a, 0x0a])],
    });
    const response = await streamedChatRequest();
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body ?? []) {
      chunks.push(chunk);
    }
    expect(chunks.length).toBe(3);
    expect(Buffer.concat(chunks).toString("utf8")).toBe("data: a\né\n\n");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
  });

  it("rejects stream_options when the profile says so", async () => {
    await server.close();
    server = await startFakeModelServer({ rejectStreamOptions: true });
    server.enqueue({ text: "ok" });
    const result = await run(clientNamed("openai-compatible").model(server.url), {
      messages: [user("hi")],
    });
    expectApiError(result.errors[0], 400);
    expect(server.requests[0]?.validationError).toMatch(/stream_options/);
  });

  it("requires reasoning_content passback in the deepseek profile", async () => {
    await server.close();
    server = await startFakeModelServer({ requireReasoningPassback: true });
    const model = clientNamed("openai-compatible").model(server.url);
    server.enqueue(
      {
        reasoning: ["Check the dir ", "first."],
        toolCalls: [{ id: "call_D1", name: "shell", arguments: '{"command":"ls"}' }],
      },
      { text: "Listed." },
    );
    const first = await run(model, { messages: [user("list W")] });
    const withReasoning = [
      user("list W"),
      ...first.responseMessages,
      toolResult("call_D1", "shell", "a"),
    ];
    const withoutReasoning = withReasoning.map((message) =>
      message.role === "assistant" && Array.isArray(message.content)
        ? { ...message, content: message.content.filter((part) => part.type !== "reasoning") }
        : message,
    );
    const rejected = await run(model, { messages: withoutReasoning });
    expectApiError(rejected.errors[0], 400);
    const accepted = await run(model, { messages: withReasoning });
    expect(accepted.text).toBe("Listed.");
    const assistant = server.requests[2]?.body;
    expect(JSON.stringify(assistant)).toContain('"reasoning_content":"Check the dir first."');
  });

  it("rejects a replayed reasoning item id when store is false (the AI SDK sends one)", async () => {
    const model = clientNamed("openai .responses").model(server.url);
    const providerOptions = { openai: { store: false, include: ["reasoning.encrypted_content"] } };
    server.enqueue({
      reasoning: "plan",
      encryptedReasoning: "ENC_1",
      toolCalls: [{ id: "call_R1", name: "shell", arguments: '{"command":"echo a"}' }],
    });
    const first = await run(model, { messages: [user("go")], providerOptions });
    expect(first.errors).toEqual([]);
    const history = [user("go"), ...first.responseMessages, toolResult("call_R1", "shell", "a")];
    const second = await run(model, { messages: history, providerOptions });
    expectApiError(second.errors[0], 400);
    expect(server.requests[1]?.validationError).toMatch(/Item with id 'rs_1' not found/);
  });

  it("holds a non-streaming reply's whole body until its pause's gate opens", async () => {
    // The SDK server asks without `stream: true`; its tests order sends by this gate.
    const held = gate();
    server.enqueue(
      { text: "held", pause: { afterEvents: 0, until: held.opened } },
      { text: "next" },
    );
    let heldAnswered = false;
    const heldResponse = unstreamedChatRequest().then(async (response) => {
      heldAnswered = true;
      return response.json();
    });
    await expect.poll(() => server.requests.length).toBe(1);
    // A whole later exchange with the same server: an unheld body would have arrived by now.
    const next = (await (await unstreamedChatRequest()).json()) as ChatCompletion;
    expect(next.choices[0]?.message.content).toBe("next");
    expect(heldAnswered).toBe(false);
    held.open();
    const body = (await heldResponse) as ChatCompletion;
    expect(body.choices[0]?.message.content).toBe("held");
  });

  it("ends held streams when closed", async () => {
    server.enqueue({ raw: ["data: x\n\n", { hold: true }] });
    const response = await streamedChatRequest();
    const reader = response.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("data: x\n\n");
    await server.close();
    await expect(reader?.read()).rejects.toThrow();
    expect(server.requests[0]?.clientClosed).toBe(false);
  });

  it("requires include reasoning.encrypted_content with store false when the profile says so", async () => {
    await server.close();
    server = await startFakeModelServer({ requireEncryptedReasoningInclude: true });
    server.enqueue({ text: "ok" }, { text: "ok" });
    const providerOptions = { openai: { store: false } };
    const url = `${server.url}/v1`;
    // the SDK adds the include by itself only for models it knows to reason
    const reasoningModel = createOpenAI({ baseURL: url, apiKey: "test" }).responses("gpt-5");
    const plainModel = createOpenAI({ baseURL: url, apiKey: "test" }).responses("gpt-4.1");
    expect((await run(reasoningModel, { messages: [user("a")], providerOptions })).text).toBe("ok");
    expectApiError(
      (await run(plainModel, { messages: [user("b")], providerOptions })).errors[0],
      400,
    );
  });
});
