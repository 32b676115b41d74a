import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";

// A quota or billing error (`insufficient_quota`) is `error.type` `quota` in -p's JSON result and
// never sent again, however it comes: an HTTP 429, a 200 answer whose body is an error, an error
// chunk inside the event stream. An error body that says nothing of its kind is not sent again
// either: nothing says it is transient (trial 41's verification, L1 and L2). Through the built CLI.

/** `turnloop --model modelId -p hi --output-format json` with at most 2 retries, retrying fast. */
async function jsonRun(cli: CliFixtures["cli"], modelId: string, baseUrl: string) {
  const result = await cli(
    ["--model", modelId, "--base-url", baseUrl, "-p", "hi", "--output-format", "json"],
    {
      env: {
        OPENAI_API_KEY: "sk-test-key",
        ANTHROPIC_API_KEY: "sk-test-key",
        TURNLOOP_RETRY_BASE_DELAY_MS: "5",
        TURNLOOP_MAX_RETRIES: "2",
      },
    },
  );
  const parsed = JSON.parse(result.stdout) as { subtype: string; error?: unknown };
  return { code: result.code, subtype: parsed.subtype, error: parsed.error };
}

const QUOTA = { message: "quota exceeded for this key", type: "insufficient_quota" };

describe("a quota error", () => {
  test("is error.type quota, sent once, as a 429, a 200 error body or an error inside the stream", async ({
    cli,
    model,
  }) => {
    const seen = [];
    const replies = {
      "HTTP 429": { status: 429, body: { error: QUOTA } },
      "200 error body": { status: 200, body: { error: QUOTA } },
      "error chunk": {
        raw: [`data: ${JSON.stringify({ error: { ...QUOTA, code: "insufficient_quota" } })}\n\n`],
      },
    };
    for (const [how, reply] of Object.entries(replies)) {
      model.setResponder(() => reply);
      const before = model.requests.length;
      const result = await jsonRun(cli, "openai-compatible:fake-model", `${model.url}/v1`);
      seen.push({ how, ...result, requests: model.requests.length - before });
    }
    const failed = (message: string) => ({
      code: 1,
      subtype: "error_during_execution",
      error: { type: "quota", message },
      requests: 1,
    });
    expect(seen).toEqual([
      { how: "HTTP 429", ...failed("HTTP 429: quota exceeded for this key") },
      {
        how: "200 error body",
        ...failed(
          "the server answered HTTP 200 with an error body (insufficient_quota): quota exceeded for this key",
        ),
      },
      {
        how: "error chunk",
        ...failed(
          "the server reported an error in its event stream (insufficient_quota): quota exceeded for this key",
        ),
      },
    ]);
  });
});

describe("an error body that does not say it is transient", () => {
  test("a 200 body {error: 'model not found: foo'} is sent once, an invalid request", async ({
    cli,
    model,
  }) => {
    model.setResponder(() => ({ status: 200, body: { error: "model not found: foo" } }));
    const result = await jsonRun(cli, "openai-compatible:fake-model", `${model.url}/v1`);
    expect({ ...result, requests: model.requests.length }).toEqual({
      code: 1,
      subtype: "error_during_execution",
      error: {
        type: "invalid_request",
        message: "the server answered HTTP 200 with an error body: model not found: foo",
      },
      requests: 1,
    });
  });
});

describe("an error event inside an Anthropic stream", () => {
  test("is typed by its own type, as on every other wire: a quota, an invalid request, sent once", async ({
    cli,
    model,
  }) => {
    const seen = [];
    for (const error of [
      { type: "invalid_request_error", message: "Your credit balance is too low" },
      { type: "invalid_request_error", message: "messages: bad order" },
    ]) {
      model.setResponder(() => ({
        raw: [`event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`],
      }));
      const before = model.requests.length;
      const result = await jsonRun(cli, "anthropic:claude-sonnet-4-5", `${model.url}/v1`);
      seen.push({ ...result, requests: model.requests.length - before });
    }
    expect(seen.map(({ error, requests }) => ({ error, requests }))).toEqual([
      { error: expect.objectContaining({ type: "quota" }), requests: 1 },
      { error: expect.objectContaining({ type: "invalid_request" }), requests: 1 },
    ]);
  });
});
