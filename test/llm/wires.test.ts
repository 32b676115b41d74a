import { afterEach, describe, expect, test } from "vitest";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, Reply, SemanticReply, Wire } from "../support/fake-model-types.js";
import { MODEL_FOR_WIRE } from "../support/harness.js";
import { renderReply } from "../support/render-reply.js";

// Issue 27, item 5: every wire, streaming and not, with a valid reply, a cut reply and an error.
// The Copilot SDK asks for non-streaming replies unless the app sets `streaming: true`; a server
// may stream anyway (trial 39, F6).

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Every provider, by the wire it speaks: `openai-chat` goes through the AI SDK's OpenAI adapter,
 * `openai-compatible` and `ollama` through its OpenAI-compatible one, on the same wire.
 */
const MODELS: Array<[string, Wire]> = [
  [MODEL_FOR_WIRE["openai-chat"], "openai-chat"],
  ["openai-chat:gpt-4.1", "openai-chat"],
  ["ollama:qwen3", "openai-chat"],
  [MODEL_FOR_WIRE["openai-responses"], "openai-responses"],
  [MODEL_FOR_WIRE.anthropic, "anthropic"],
];
const KINDS: Array<[string, boolean]> = [
  ["streaming", true],
  ["non-streaming", false],
];
const CASES = MODELS.flatMap(([model, wire]) =>
  KINDS.map(([kind, streaming]) => [model, wire, kind, streaming] as const),
);

const VALID: SemanticReply = {
  text: "all well",
  toolCalls: [{ id: "call_1", name: "lookup", arguments: '{"key":"a"}' }],
  usage: { input: 12, output: 7 },
};

/** Every event of one request to the fake server answering every attempt with `reply`. */
async function run(model: string, streaming: boolean, reply: Reply): Promise<LlmEvent[]> {
  await server?.close();
  server = await startFakeModelServer();
  server.setResponder(() => reply);
  const resolved = resolveModel(
    { model, baseUrl: `${server.url}/v1` },
    { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" },
  );
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const provider = createProvider(resolved.configuration, {
    retry: { initialDelayMs: 1, maxDelayMs: 2, maxRetries: 1 },
  });
  const events: LlmEvent[] = [];
  const request = {
    system: "be brief",
    messages: [{ role: "user" as const, content: "hi" }],
    tools: [{ name: "lookup", description: "Looks up", inputSchema: { type: "object" } }],
    streaming,
  };
  for await (const event of provider.stream(request, new AbortController().signal)) {
    events.push(event);
  }
  return events;
}

/** The events without the streamed pieces (which only a streaming reply has), reduced to what a user sees. */
function outline(events: LlmEvent[]): unknown[] {
  return events
    .filter((event) => event.type !== "text_delta" && event.type !== "tool_call_start")
    .map((event) => {
      switch (event.type) {
        case "retry":
          return { type: "retry", errorType: event.errorType };
        case "error":
          return { type: "error", errorType: event.failure.errorType };
        case "done":
          return {
            type: "done",
            content: event.reply.content,
            toolCalls: event.reply.toolCalls.map(({ toolCallId, name, arguments: input }) => ({
              toolCallId,
              name,
              input,
            })),
            finishReason: event.reply.finishReason,
            tokens: [event.usage.inputTokens, event.usage.outputTokens],
          };
        default:
          return event;
      }
    });
}

describe.each(CASES)("%s (%s wire), %s", (model, _wire, _kind, streaming) => {
  test("a valid reply is the reply", async () => {
    const events = await run(model, streaming, VALID);
    expect(outline(events)).toEqual([
      { type: "request_start" },
      {
        type: "done",
        content: "all well",
        toolCalls: [{ toolCallId: "call_1", name: "lookup", input: { key: "a" } }],
        finishReason: "tool-calls",
        tokens: [12, 7],
      },
    ]);
  });

  test("a cut reply is a failure, never a reply", async () => {
    const events = await run(model, streaming, { ...VALID, breakAfterEvents: 2 });
    // Retried only while nothing was shown; either way it ends as an error and never as a reply.
    expect(outline(events).at(-1)).toEqual({
      type: "error",
      errorType: streaming ? "network" : expect.stringMatching(/^(network|malformed_response)$/),
    });
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  test("an error answer is a failure with its status", async () => {
    const events = await run(model, streaming, {
      status: 400,
      body: { error: { message: "bad thing", type: "invalid_request_error" } },
    });
    expect(outline(events)).toEqual([
      { type: "request_start" },
      { type: "error", errorType: "invalid_request" },
    ]);
  });
});

/** `reply` as the fake server streams it on `wire` (its first reply's ids): SSE bytes. */
function streamedBytes(wire: Wire, reply: SemanticReply): string[] {
  const context = { sequence: 1, model: "fake-model", createdAt: 0 };
  return renderReply(wire, reply, context).map(
    ({ event, data }) => `${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`,
  );
}

/**
 * Trial 39, F6: a non-streaming request (the Copilot SDK's default) answered 200 with
 * `content-type: text/event-stream`, as servers and proxies that always stream do, failed as "the
 * model server's reply is not JSON (HTTP 200, content type text/event-stream)". It is read as the
 * stream it says it is, without asking again: the reply a streaming request gets, no deltas.
 */
describe.each(MODELS)("%s (%s wire), non-streaming, answered with a stream", (model, wire) => {
  test("the stream is the reply, the server asked once", async () => {
    const streamedEvents = await run(model, true, VALID);
    const events = await run(model, false, { raw: streamedBytes(wire, VALID) });
    expect(events).toEqual([{ type: "request_start" }, streamedEvents.at(-1)]);
    expect(outline(events).at(-1)).toMatchObject({ content: "all well", tokens: [12, 7] });
    expect(server?.requests.map((request) => request.body)).toEqual([
      expect.not.objectContaining({ stream: true }),
    ]);
  });

  test("a stream cut before its end is a broken stream, retried", async () => {
    const cut = streamedBytes(wire, VALID).slice(0, wire === "anthropic" ? -1 : 2);
    // Anthropic's without its `message_stop` only: a stream that ends there is cut, as when streaming.
    expect(cut.at(-1)).not.toContain("message_stop");
    const events = await run(model, false, { raw: cut });
    expect(outline(events)).toEqual([
      { type: "request_start" },
      { type: "retry", errorType: "network" },
      { type: "request_start" },
      { type: "error", errorType: "network" },
    ]);
    expect(server?.requests).toHaveLength(2);
  });
});

describe("ANTHROPIC_BASE_URL", () => {
  test.each([
    ["the host alone (Anthropic's SDKs, Claude Code)", ""],
    ["with /v1 (the AI SDK's convention)", "/v1"],
  ])("%s: requests go to /v1/messages", async (_name, suffix) => {
    server = await startFakeModelServer();
    server.enqueue({ text: "hello" });
    const resolved = resolveModel(
      {
        model: "anthropic:claude-fake",
        endpoints: { ANTHROPIC_BASE_URL: `${server.url}${suffix}` },
      },
      { ANTHROPIC_API_KEY: "test-key" },
    );
    if (!resolved.ok) {
      throw new Error(resolved.message);
    }
    const provider = createProvider(resolved.configuration);
    const events: LlmEvent[] = [];
    const request = { system: "", messages: [{ role: "user" as const, content: "hi" }], tools: [] };
    for await (const event of provider.stream(request, new AbortController().signal)) {
      events.push(event);
    }
    expect(outline(events)).toEqual([
      { type: "request_start" },
      { type: "done", content: "hello", toolCalls: [], finishReason: "stop", tokens: [10, 5] },
    ]);
    expect(server.requests.map((received) => received.path)).toEqual(["/v1/messages"]);
  });
});

describe("images in a user message on the Chat Completions wires", () => {
  const PNG =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
  test.each(["openai-chat:gpt-4.1", "openai-compatible:fake-model", "ollama:qwen3"])(
    "%s: sent as an OpenAI image_url part with a data URL",
    async (model) => {
      server = await startFakeModelServer();
      server.enqueue({ text: "a red pixel" });
      const resolved = resolveModel(
        { model, baseUrl: `${server.url}/v1` },
        { OPENAI_API_KEY: "test-key" },
      );
      if (!resolved.ok) {
        throw new Error(resolved.message);
      }
      const provider = createProvider(resolved.configuration);
      const request = {
        system: "",
        messages: [
          {
            role: "user" as const,
            content: "what is this?",
            images: [{ mimeType: "image/png", data: PNG }],
          },
        ],
        tools: [],
      };
      for await (const _event of provider.stream(request, new AbortController().signal)) {
        // drained
      }
      const body = server.requests[0]?.body as { messages: Array<{ content: unknown }> };
      expect(body.messages.at(-1)?.content).toEqual([
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
    },
  );
});
