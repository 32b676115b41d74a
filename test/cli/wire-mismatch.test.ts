import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial 41 (F5): `openai:` pointed at a Chat Completions server was said as "the server reported
// an error in its event stream", in the AI SDK's words (`openai.chat('model-id')`), and sent again
// five times, though a stream of another wire's shape would come again. Each provider against
// each other wire: one request, what the server speaks, and the prefix that speaks it.

/** The first events of a reply on each wire, as its servers send them. */
const STREAMS = {
  chat: [
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
    "data: [DONE]\n\n",
  ],
  responses: [
    `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_1", object: "response", created_at: 1, status: "in_progress", model: "m", output: [] } })}\n\n`,
  ],
  anthropic: [
    `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
    `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
  ],
} as const;

const SAID = {
  chat: "OpenAI Chat Completions chunks",
  responses: "OpenAI Responses API events",
  anthropic: "Anthropic Messages API events",
} as const;

const PREFIX_OF = { chat: "openai-compatible", responses: "openai", anthropic: "anthropic" };

describe("a server speaking another wire than the model's prefix", () => {
  test("is said with the prefix that speaks it, after one request, not retried", async ({
    cli,
    model,
  }) => {
    const cases = [
      ["openai:gpt-4o-mini", "chat", "the OpenAI Responses API"],
      ["openai:gpt-4o-mini", "anthropic", "the OpenAI Responses API"],
      ["openai-compatible:gpt-4o-mini", "responses", "OpenAI Chat Completions"],
      ["openai-compatible:gpt-4o-mini", "anthropic", "OpenAI Chat Completions"],
      ["openai-chat:gpt-4o-mini", "responses", "OpenAI Chat Completions"],
      ["anthropic:gpt-4o-mini", "chat", "the Anthropic Messages API"],
      ["anthropic:gpt-4o-mini", "responses", "the Anthropic Messages API"],
    ] as const;
    const seen = [];
    const expected = [];
    for (const [modelId, served, speaks] of cases) {
      // Every attempt gets the same stream, as such a server would send it again.
      model.setResponder(() => ({ raw: [...STREAMS[served]] }));
      const before = model.requests.length;
      const result = await cli(
        [
          "--model",
          modelId,
          "--base-url",
          `${model.url}/v1`,
          "-p",
          "hi",
          "--output-format",
          "json",
        ],
        {
          env: {
            OPENAI_API_KEY: "sk-test-key",
            ANTHROPIC_API_KEY: "sk-test-key",
            TURNLOOP_RETRY_BASE_DELAY_MS: "5",
          },
        },
      );
      const prefix = modelId.split(":")[0];
      const json = JSON.parse(result.stdout) as { error?: unknown };
      seen.push({
        modelId,
        served,
        requests: model.requests.length - before,
        code: result.code,
        error: json.error,
      });
      expected.push({
        modelId,
        served,
        requests: 1,
        code: 1,
        error: {
          type: "malformed_response",
          message: `the server answered with ${SAID[served]}, but ${prefix}: speaks ${speaks}; for this server use --model ${PREFIX_OF[served]}:gpt-4o-mini`,
        },
      });
    }
    expect(seen).toEqual(expected);
  });
});
