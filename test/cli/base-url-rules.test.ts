import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// One rule per wire for what a base URL may be, wherever it is given (`--base-url`,
// `TURNLOOP_BASE_URL`, a config profile's `baseUrl`, the vendor's variable): Anthropic's and
// Ollama's may be the host alone or end in /v1 (turnloop adds the /v1 they lack), the OpenAI
// wires' are used as given. Trial 42 F2: `--base-url http://host` and a profile's host-only
// `baseUrl` on Anthropic's wire asked `http://host/messages`, though the 404's hint said the host
// alone works; F12: `OLLAMA_HOST=http://host/v1` asked `/v1/v1/chat/completions`. Each run is
// the built CLI's `-p`; the fake model records the path each asked.

const WIRES = [
  { model: "anthropic:claude-sonnet-4-5", type: "anthropic", variable: "ANTHROPIC_BASE_URL" },
  { model: "ollama:qwen3", type: "ollama", variable: "OLLAMA_HOST" },
  { model: "openai-chat:gpt-4.1", type: "openai-chat", variable: "OPENAI_BASE_URL" },
];

test("each wire's base URL rule holds for a flag, TURNLOOP_BASE_URL, a profile and the vendor's variable", async ({
  cli,
  model,
  home,
}) => {
  const seen = [];
  for (const wire of WIRES) {
    for (const form of ["", "/v1"]) {
      const url = `${model.url}${form}`;
      await writeFile(
        join(home, "config.json"),
        JSON.stringify({ providers: { lab: { type: wire.type, baseUrl: url, apiKeyEnv: "KEY" } } }),
      );
      const places: Record<string, { args: string[]; env: Record<string, string> }> = {
        "--base-url": { args: ["--model", wire.model, "--base-url", url], env: {} },
        TURNLOOP_BASE_URL: { args: ["--model", wire.model], env: { TURNLOOP_BASE_URL: url } },
        profile: { args: ["--model", `lab:${wire.model.split(":")[1]}`], env: { KEY: "k" } },
        [wire.variable]: { args: ["--model", wire.model], env: { [wire.variable]: url } },
      };
      for (const [place, { args, env }] of Object.entries(places)) {
        model.enqueue({ text: "ok" });
        const before = model.requests.length;
        const result = await cli([...args, "-p", "hi"], {
          env: {
            TURNLOOP_BASE_URL: undefined,
            OPENAI_API_KEY: "sk-test",
            ANTHROPIC_API_KEY: "sk-test",
            ...env,
          },
        });
        seen.push({
          wire: wire.type,
          form,
          place,
          code: result.code,
          path: model.requests[before]?.path,
        });
      }
    }
  }
  const expected = WIRES.flatMap((wire) =>
    ["", "/v1"].flatMap((form) =>
      ["--base-url", "TURNLOOP_BASE_URL", "profile", wire.variable].map((place) => ({
        wire: wire.type,
        form,
        place,
        code: 0,
        path: {
          anthropic: "/v1/messages",
          ollama: "/v1/chat/completions",
          // Used as given: a host alone asks the host's /chat/completions.
          "openai-chat": form === "" ? "/chat/completions" : "/v1/chat/completions",
        }[wire.type],
      })),
    ),
  );
  expect(seen).toEqual(expected);
}, 600_000);

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
