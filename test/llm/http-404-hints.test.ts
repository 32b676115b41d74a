import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A 404 from a model server names the base URL rule of its wire (README, "Choosing a model")
// whenever the server did not answer as the wire's API (a plain or HTML page, another vendor's
// error shape), not only when the URL lacks a version (round 3, session 43, N5: Anthropic's wire
// with a doubled /v1, and OLLAMA_HOST=http://host:11434/api, said "Not Found" and nothing else).
// A 404 the API itself explains (its JSON error read by the provider) is said as it is, with the
// cure of a model the server does not have in the face's words (here the command line's, the
// loop's default; trial r3s46 F5).

const PAGE = { status: 404, body: "404 page not found" };
const OTHER_SHAPE = { status: 404, body: { error: { message: "Not Found: /v1/messages" } } };
const API_ANSWER = {
  status: 404,
  body: { error: { message: "The model `nope` does not exist", type: "invalid_request_error" } },
};

test("each wire's 404 names its base URL rule unless the API answered", async ({ openHarness }) => {
  const seen = [];
  for (const [model, baseUrlPath, reply] of [
    ["anthropic:claude-sonnet-4-5", "/v1/v1", PAGE],
    ["anthropic:claude-sonnet-4-5", "/v1", OTHER_SHAPE],
    ["ollama:qwen3", "/api", PAGE],
    ["openai:gpt-5", "/v1/v1", PAGE],
    ["openai-compatible:nope", "/v1", API_ANSWER],
  ] as const) {
    const harness = await openHarness({ model, baseUrlPath });
    harness.server.setResponder(() => reply);
    const outcome = await harness.prompt("hello");
    const url = harness.server.url;
    seen.push(("error" in outcome ? outcome.error.message : "no error").replace(url, "<server>"));
    await harness.close();
  }
  const path = (name: string) => `the base URL's path may be wrong (${name})`;
  const anthropic = path(
    "an Anthropic Messages API one is the host alone or ends in /v1: turnloop adds /v1 when it is missing, then /messages",
  );
  const chat = path(
    "an OpenAI-compatible one usually ends in /v1; Ollama's (OLLAMA_HOST) is the server's address, host:port, to which turnloop adds /v1",
  );
  expect(seen).toEqual([
    `HTTP 404 from <server>/v1/v1/messages (model "claude-sonnet-4-5"): Not Found (404 page not found); ${anthropic}, or the server has no model "claude-sonnet-4-5"`,
    `HTTP 404 from <server>/v1/messages (model "claude-sonnet-4-5"): Not Found (Not Found: /v1/messages); ${anthropic}, or the server has no model "claude-sonnet-4-5"`,
    `HTTP 404 from <server>/api/v1/chat/completions (model "qwen3"): Not Found (404 page not found); ${chat}, or the server has no model "qwen3"`,
    `HTTP 404 from <server>/v1/v1/responses (model "gpt-5"): Not Found (404 page not found); ${path("an OpenAI Responses API one usually ends in /v1; turnloop adds /responses")}, or the server has no model "gpt-5"`,
    `HTTP 404 from <server>/v1/chat/completions (model "nope"): The model \`nope\` does not exist; the server has no model "nope": choose another with --model or TURNLOOP_MODEL`,
  ]);
});
