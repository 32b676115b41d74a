import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// One rule per wire for what a base URL may be, wherever it is given (`--base-url`,
// `TURNLOOP_BASE_URL`, a config profile's `baseUrl`, the vendor's variable): Anthropic's and
// Ollama's may be the host alone or end in /v1 (turnloop adds the /v1 they lack), the OpenAI
// wires' are used as given. Trial 42 F2: `--base-url http://host` on Anthropic's wire asked
// `http://host/messages`, though the 404's hint said the host alone works; F12:
// `OLLAMA_HOST=http://host/v1` asked `/v1/v1/chat/completions`. Every wire × form × place is
// checked in-process on the way `-p` takes it (test/session/base-url-places.test.ts); here one
// case a wire runs the built CLI's `-p`, the fake model recording the path it asked.

const CASES = [
  {
    name: "Anthropic's host alone in --base-url",
    args: (url: string) => ["--model", "anthropic:claude-sonnet-4-5", "--base-url", url],
    env: () => ({}),
    config: undefined,
    form: "",
    path: "/v1/messages",
  },
  {
    name: "OLLAMA_HOST ending in /v1",
    args: () => ["--model", "ollama:qwen3"],
    env: (url: string) => ({ OLLAMA_HOST: url }),
    config: undefined,
    form: "/v1",
    path: "/v1/chat/completions",
  },
  {
    name: "an OpenAI Chat profile's host alone, used as given",
    args: () => ["--model", "lab:gpt-4.1"],
    env: () => ({ KEY: "k" }),
    config: "openai-chat",
    form: "",
    path: "/chat/completions",
  },
];

test.for(CASES)("$name: the path asked is $path", async (one, { cli, model, home }) => {
  const url = `${model.url}${one.form}`;
  if (one.config !== undefined) {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ providers: { lab: { type: one.config, baseUrl: url, apiKeyEnv: "KEY" } } }),
    );
  }
  model.enqueue({ text: "ok" });
  const result = await cli([...one.args(url), "-p", "hi"], {
    env: {
      TURNLOOP_BASE_URL: undefined,
      OPENAI_API_KEY: "sk-test",
      ANTHROPIC_API_KEY: "sk-test",
      ...one.env(url),
    },
  });
  expect({
    code: result.code,
    stdout: result.stdout,
    paths: model.requests.map((request) => request.path),
  }).toEqual({
    code: 0,
    stdout: "ok\n",
    paths: [one.path],
  });
});

test("a 404 on Anthropic's wire keeps the server's words in another vendor's error shape", async ({
  cli,
  model,
}) => {
  model.enqueue({
    status: 404,
    body: { error: { message: "Not Found: /v1/messages", type: "not_found_error" } },
  });
  const result = await cli(
    ["--model", "anthropic:claude-sonnet-4-5", "--base-url", `${model.url}/v1`, "-p", "hi"],
    { env: { ANTHROPIC_API_KEY: "sk-test" } },
  );
  expect(result.stderr.split("\n").filter((line) => line.startsWith("turnloop: "))[0]).toBe(
    `turnloop: HTTP 404 from ${model.url}/v1/messages (model "claude-sonnet-4-5"): Not Found (Not Found: /v1/messages); the base URL's path may be wrong (an Anthropic Messages API one is the host alone or ends in /v1: turnloop adds /v1 when it is missing, then /messages), or the server has no model "claude-sonnet-4-5"`,
  );
});
