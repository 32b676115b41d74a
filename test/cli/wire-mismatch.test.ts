import { expect } from "vitest";
import { test } from "../support/fixtures.js";
import { mismatchMessage, STREAMS } from "../support/wire-mismatch.js";

// Trial 41 (F5): `openai:` pointed at a Chat Completions server was said as "the server reported
// an error in its event stream", in the AI SDK's words, and sent again five times. What `-p` says
// of a server speaking another wire is one path for every pair: here the trial's pair end to end;
// each provider against each other wire is test/llm/wire-mismatch.test.ts (in-process).

test("a server speaking another wire than the model's prefix is said with the prefix that speaks it, after one request, not retried", async ({
  cli,
  model,
}) => {
  // Every attempt gets the same stream, as such a server would send it again.
  model.setResponder(() => ({ raw: [...STREAMS.chat] }));
  const result = await cli(
    ["--model", "openai:gpt-4o-mini", "--base-url", `${model.url}/v1`, "-p", "hi"].concat([
      "--output-format",
      "json",
    ]),
    { env: { OPENAI_API_KEY: "sk-test-key", TURNLOOP_RETRY_BASE_DELAY_MS: "5" } },
  );
  const json = JSON.parse(result.stdout) as { error?: unknown };
  expect({ requests: model.requests.length, code: result.code, error: json.error }).toEqual({
    requests: 1,
    code: 1,
    error: {
      type: "malformed_response",
      message: mismatchMessage("openai:gpt-4o-mini", "chat", "the OpenAI Responses API"),
    },
  });
});
