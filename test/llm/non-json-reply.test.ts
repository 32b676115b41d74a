import { afterEach, describe, expect, test } from "vitest";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, Reply } from "../support/fake-model-types.js";
import { MODEL_FOR_WIRE } from "../support/harness.js";

/**
 * Trial 31, LOW 9: a non-streaming request (the Copilot SDK's default) answered 200 with a body
 * that is not JSON was reported as "the model's stream broke off: Unexpected token …" and
 * retried, though no stream was asked for. It is a malformed response now, said with what came
 * (status, content type, the body's first characters), and not retried; so is JSON of a shape
 * the wire does not have.
 */

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODELS = [
  MODEL_FOR_WIRE["openai-chat"],
  "openai-chat:gpt-4.1",
  MODEL_FOR_WIRE["openai-responses"],
  MODEL_FOR_WIRE.anthropic,
];

/** Every event of one non-streaming request answered with `reply` (one retry allowed). */
async function run(model: string, reply: Reply): Promise<LlmEvent[]> {
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
    system: "",
    messages: [{ role: "user" as const, content: "hi" }],
    tools: [],
    streaming: false,
  };
  for await (const event of provider.stream(request, new AbortController().signal)) {
    events.push(event);
  }
  return events;
}

describe.each(MODELS)("%s, non-streaming", (model) => {
  test("a 200 whose body is not JSON is said as that, once", async () => {
    const events = await run(model, {
      status: 200,
      headers: { "content-type": "text/plain" },
      body: "upstream proxy says hello",
    });
    expect(events).toEqual([
      { type: "request_start" },
      {
        type: "error",
        failure: {
          errorType: "malformed_response",
          message:
            "the model server's reply is not JSON (HTTP 200, content type text/plain): upstream proxy says hello",
        },
      },
    ]);
    expect(server?.requests).toHaveLength(1);
  });

  test("a cut JSON body is not JSON either", async () => {
    const events = await run(model, {
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"id":"x","cho',
    });
    expect(events.at(-1)).toEqual({
      type: "error",
      failure: {
        errorType: "malformed_response",
        message:
          'the model server\'s reply is not JSON (HTTP 200, content type application/json): {"id":"x","cho',
      },
    });
  });
});

describe("a 200 of JSON its wire does not have", () => {
  test.each([
    [MODEL_FOR_WIRE["openai-chat"], "choices: Invalid input: expected array, received undefined"],
    [MODEL_FOR_WIRE.anthropic, 'type: Invalid input: expected "message"'],
  ])("%s: says the first issue and the body", async (model, issue) => {
    const events = await run(model, {
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"id":"x"}',
    });
    expect(events).toEqual([
      { type: "request_start" },
      {
        type: "error",
        failure: {
          errorType: "malformed_response",
          message: `the model server's reply is JSON its wire does not have (HTTP 200, content type application/json; ${issue}): {"id":"x"}`,
        },
      },
    ]);
  });
});
