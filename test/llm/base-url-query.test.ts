import { afterEach, describe, expect, test } from "vitest";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";

/*
 * A base URL with a query string, as Azure OpenAI takes its API version
 * (`…/openai/deployments/d?api-version=2024-10-01`): the AI SDK's providers append the wire's
 * path to the base as text, so the request went to `/v1?api-version=2024-10-01/chat/completions`
 * (the fake server saw the path `/v1`). Every wire now keeps the query after the path it adds
 * (llm/base-url.ts `endpointOptions`); the fake model server records the request line's target as received.
 */

const QUERY = "api-version=2024-10-01";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The events of one request, reduced to what a user sees, by the model `input` resolves to. */
async function ask(input: Parameters<typeof resolveModel>[0]): Promise<unknown[]> {
  const resolved = resolveModel(input, {
    OPENAI_API_KEY: "test-key",
    ANTHROPIC_API_KEY: "test-key",
  });
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const provider = createProvider(resolved.configuration, {
    retry: { initialDelayMs: 1, maxDelayMs: 2, maxRetries: 0 },
  });
  const events: LlmEvent[] = [];
  const request = { system: "", messages: [{ role: "user" as const, content: "hi" }], tools: [] };
  for await (const event of provider.stream(request, new AbortController().signal)) {
    events.push(event);
  }
  return events.flatMap((event): object[] => {
    switch (event.type) {
      case "done":
        return [{ type: "done", content: event.reply.content }];
      case "error":
        return [{ type: "error", message: event.failure.message }];
      case "request_start":
        return [{ type: event.type }];
      default:
        return [];
    }
  });
}

const WIRES: Array<[string, string]> = [
  ["openai-compatible:fake-model", "/v1/chat/completions"],
  ["openai-chat:gpt-4.1", "/v1/chat/completions"],
  ["ollama:qwen3", "/v1/chat/completions"],
  ["openai:gpt-5", "/v1/responses"],
  ["anthropic:claude-fake", "/v1/messages"],
];

describe.each(WIRES)("%s", (model, path) => {
  test.each(["/v1", "/v1/"])(
    `a base URL ending %s?${QUERY} is asked at ${path}?${QUERY}`,
    async (end) => {
      server = await startFakeModelServer();
      server.enqueue({ text: "hello" });
      const events = await ask({ model, baseUrl: `${server.url}${end}?${QUERY}` });
      expect(events).toEqual([{ type: "request_start" }, { type: "done", content: "hello" }]);
      expect(server.requests.map((received) => received.target)).toEqual([`${path}?${QUERY}`]);
    },
  );
});

test("ANTHROPIC_BASE_URL with a query gets its /v1 before the query", async () => {
  server = await startFakeModelServer();
  server.enqueue({ text: "one" }, { text: "two" });
  for (const value of [`${server.url}?${QUERY}`, `${server.url}/v1/?${QUERY}`]) {
    const events = await ask({
      model: "anthropic:claude-fake",
      endpoints: { ANTHROPIC_BASE_URL: value },
    });
    expect(events.at(-1)).toMatchObject({ type: "done" });
  }
  expect(server.requests.map((received) => received.target)).toEqual([
    `/v1/messages?${QUERY}`,
    `/v1/messages?${QUERY}`,
  ]);
});

test("OLLAMA_HOST with a query gets its scheme and /v1 before the query", () => {
  const resolved = resolveModel(
    { model: "ollama:qwen3", endpoints: { OLLAMA_HOST: `127.0.0.1:11434/?${QUERY}` } },
    {},
  );
  expect(resolved).toMatchObject({
    ok: true,
    configuration: { baseUrl: `http://127.0.0.1:11434/v1?${QUERY}` },
  });
});

// A key in the base URL's query (`?api-key=…`, a storage signature's `sig=`) is a credential: a
// failure that names the request URL shows its query with the values of such names cut, as
// `turnloop config` shows the base URL (llm/shown-values.ts).
test("a failure naming the request URL cuts the query's credentials, keeps the rest", async () => {
  server = await startFakeModelServer();
  const page = "<!doctype html><html><title>Sign in</title></html>";
  server.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: page });
  const query = `${QUERY}&api-key=k3y-value-0123456789&sig=s1gn4ture&client_secret=sh-h`;
  const events = await ask({
    model: "openai-compatible:fake-model",
    baseUrl: `${server.url}/v1?${query}`,
  });
  expect(server.requests.map((received) => received.target)).toEqual([
    `/v1/chat/completions?${query}`,
  ]);
  expect(events).toEqual([
    { type: "request_start" },
    {
      type: "error",
      message: `the server answered with a web page (text/html), not the model API: check the base URL (an OpenAI-compatible one usually ends in /v1) or a proxy in between (${server.url}/v1/chat/completions?${QUERY}&api-key=[redacted]&sig=[redacted]&client_secret=[redacted])`,
    },
  ]);
});
