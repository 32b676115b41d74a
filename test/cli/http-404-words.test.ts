import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A model server answering 404 (trial 40 F10): the usual cause is a base URL without its `/v1`
// (`--base-url http://127.0.0.1:8000` for a vLLM serving `/v1`). Through the built CLI's `-p`,
// every wire: the message names the URL asked and the model, keeps the server's own words and
// says the likely cause; a 404 the API itself explains keeps the server's message and names the
// cure, another model, in the command line's words (trial r3s46 F5).

/** The `turnloop:` lines of `stderr` (no retry lines: a 404 is not retried). */
function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("turnloop: "));
}

test("a base URL without /v1: the URL, the model, the server's words and the likely cause", async ({
  cli,
  model,
}) => {
  const seen: Record<string, string[]> = {};
  for (const modelId of ["openai-compatible:x", "ollama:qwen3", "openai:gpt-5"]) {
    model.enqueue({ status: 404, body: "404 page not found" });
    const result = await cli(["--model", modelId, "--base-url", model.url, "-p", "hello"], {
      env: { OPENAI_API_KEY: "sk-test-key" },
    });
    expect(result.code).toBe(1);
    seen[modelId] = errorLines(result.stderr).slice(0, 1);
  }
  const chat = (name: string) =>
    `turnloop: HTTP 404 from ${model.url}/chat/completions (model "${name}"): Not Found (404 page not found); the base URL's path may be wrong (an OpenAI-compatible one usually ends in /v1), or the server has no model "${name}"`;
  expect(seen).toEqual({
    "openai-compatible:x": [chat("x")],
    // Ollama's base URL gets the /v1 it lacks (base-url-rules.test.ts); a page is no API's answer.
    "ollama:qwen3": [
      `turnloop: HTTP 404 from ${model.url}/v1/chat/completions (model "qwen3"): Not Found (404 page not found); the base URL's path may be wrong (an OpenAI-compatible one usually ends in /v1; Ollama's (OLLAMA_HOST) is the server's address, host:port, to which turnloop adds /v1), or the server has no model "qwen3"`,
    ],
    "openai:gpt-5": [
      `turnloop: HTTP 404 from ${model.url}/responses (model "gpt-5"): Not Found (404 page not found); the base URL's path may be wrong (an OpenAI Responses API one usually ends in /v1; turnloop adds /responses), or the server has no model "gpt-5"`,
    ],
  });
  expect(model.requests.map((request) => request.path)).toEqual([
    "/chat/completions",
    "/v1/chat/completions",
    "/responses",
  ]);
});

test("a 404 at a /v1 URL with the server's JSON error: its message, the URL, the model and how to choose another", async ({
  cli,
  model,
}) => {
  model.enqueue({
    status: 404,
    body: { error: { message: "The model `nope` does not exist", type: "invalid_request_error" } },
  });
  const result = await cli(
    ["--model", "openai-compatible:nope", "--base-url", `${model.url}/v1`, "-p", "hello"],
    {},
  );
  expect(result.code).toBe(1);
  expect(errorLines(result.stderr).slice(0, 1)).toEqual([
    `turnloop: HTTP 404 from ${model.url}/v1/chat/completions (model "nope"): The model \`nope\` does not exist; the server has no model "nope": choose another with --model or TURNLOOP_MODEL`,
  ]);
});
