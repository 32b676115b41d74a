import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// TURNLOOP_MODELS (the model choices the faces offer besides the configured one) is checked as
// TURNLOOP_MODEL is and shown by `turnloop config` with its source, as every other setting.
// Trial 42 F14: an unknown provider in it was said by nothing (it surfaced only when someone
// picked it in an editor), and `turnloop config` had no row for it.

test("an entry naming no provider is a usage error before any request, naming the variable", async ({
  cli,
  model,
}) => {
  const result = await cli(["-p", "hi"], {
    env: { TURNLOOP_MODELS: "openai-chat:gpt-4.1, bogus:x,nocolon" },
  });
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
    code: 64,
    stdout: "",
    stderr:
      'turnloop: TURNLOOP_MODELS entry "bogus:x" is not <provider>:<model> with provider one of openai, openai-chat, anthropic, ollama, openai-compatible\n',
  });
  expect(model.requests).toEqual([]);
});

test("turnloop config shows the listed models with their source", async ({ cli }) => {
  const env = { TURNLOOP_MODELS: "openai-chat:gpt-4.1, anthropic:claude-sonnet-4-5,," };
  const text = await cli(["config"], { env });
  const json = await cli(["config", "--json"], { env });
  expect({
    code: text.code,
    row: text.stdout.split("\n").find((line) => line.startsWith("models ")),
    listed: (JSON.parse(json.stdout) as { listedModels?: unknown }).listedModels,
  }).toEqual({
    code: 0,
    row: expect.stringMatching(
      /^models +openai-chat:gpt-4\.1, anthropic:claude-sonnet-4-5 +from TURNLOOP_MODELS$/,
    ),
    listed: [
      { value: "openai-chat:gpt-4.1", source: "TURNLOOP_MODELS" },
      { value: "anthropic:claude-sonnet-4-5", source: "TURNLOOP_MODELS" },
    ],
  });
});
