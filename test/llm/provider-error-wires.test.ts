/**
 * The words of errors no retry can fix, and of error bodies answered with HTTP 200, on each wire,
 * in-process: the model's resolution (llm/models.ts `resolveModel`, which every face calls before
 * a session) and a session on the fake model serving each wire's bytes. What `-p` makes of them
 * (the `turnloop: ` line, the exit code, nothing stored) is one path for every key and wire:
 * test/cli/provider-errors.test.ts, end to end, one case of each kind.
 */

import { describe, expect } from "vitest";
import { resolveModel } from "../../src/llm/models.js";
import { test } from "../support/fixtures.js";

const WIRES = [
  "openai-compatible:fake-model",
  "openai-chat:gpt-4.1",
  "openai:gpt-5",
  "anthropic:claude-sonnet-4-5",
] as const;

/** `resolveModel`'s refusal for `modelId` with `key` in both vendors' variables. */
function keyRefusal(modelId: string, key: string) {
  return resolveModel(
    { model: modelId, baseUrl: "http://127.0.0.1:9/v1" },
    { OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key },
  );
}

describe("a key no request can carry is refused before any", () => {
  test("a character HTTP cannot carry (the README's … placeholder), on both vendors' variables", () => {
    const seen = ["openai-chat:gpt-4.1", "anthropic:claude-sonnet-4-5"].flatMap((modelId) =>
      ["sk-ant-…", "sk-bell\u0007"].map((key) => keyRefusal(modelId, key)),
    );
    const refused = (variable: string) => ({
      ok: false,
      unusableKey: true,
      message: `turnloop: the API key in ${variable} contains characters that cannot be sent in an HTTP header (a placeholder such as sk-… copied from an example?); set your real key.`,
    });
    expect(seen).toEqual([
      refused("OPENAI_API_KEY"),
      refused("OPENAI_API_KEY"),
      refused("ANTHROPIC_API_KEY"),
      refused("ANTHROPIC_API_KEY"),
    ]);
  });

  test("the README's '<your Anthropic key>' placeholder and keys with spaces", () => {
    const keys = ["<your Anthropic key>", "<key>", "paste your key here"];
    expect(keys.map((key) => keyRefusal("anthropic:claude-sonnet-4-5", key))).toEqual(
      keys.map((key) => ({
        ok: false,
        unusableKey: true,
        message: `turnloop: the API key in ANTHROPIC_API_KEY looks like a placeholder ("${key}"); set your real key.`,
      })),
    );
  });
});

// A fresh user's trial (round 3, session 19, #13): a proxy's page answered with 200 was read as a
// broken event stream ("Response stream ended without a finish reason.") and retried.
describe.for(WIRES)("a web page answered with 200 on %s", (modelId) => {
  test("is said after one request, with its wire's base URL", async ({ openHarness }) => {
    const harness = await openHarness({ model: modelId });
    harness.server.enqueue({
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: "<!doctype html><html><title>Sign in to the proxy</title></html>",
    });
    const outcome = await harness.prompt("hi");
    const [path, hint] = modelId.startsWith("anthropic")
      ? [
          "messages",
          "an Anthropic Messages API one is the host alone or ends in /v1: turnloop adds /v1 when it is missing, then /messages",
        ]
      : modelId.startsWith("openai:")
        ? ["responses", "an OpenAI Responses API one usually ends in /v1; turnloop adds /responses"]
        : ["chat/completions", "an OpenAI-compatible one usually ends in /v1"];
    expect({ outcome, requests: harness.server.requests.length }).toEqual({
      outcome: {
        error: {
          errorType: "configuration",
          message: `the server answered with a web page (text/html), not the model API: check the base URL (${hint}) or a proxy in between (${harness.server.url}/v1/${path})`,
        },
      },
      requests: 1,
    });
  });
});

// Trial 41 (F12): a gateway answering a streaming request with HTTP 200 and a JSON error body was
// said as "the model's stream broke off" and sent again as a network failure; its words were lost.
describe.for(WIRES)("a rate limit or an overload in a 200 error body on %s", (modelId) => {
  test("is sent again, said in the server's words", async ({ openHarness }) => {
    const harness = await openHarness({ model: modelId });
    const anthropic = modelId.startsWith("anthropic");
    const body = anthropic
      ? { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
      : { error: { message: "slow down", type: "rate_limit_exceeded" } };
    harness.server.enqueue({ status: 200, body }, { text: "after" });
    const outcome = await harness.prompt("hi");
    const retries = harness.events.flatMap((event) =>
      event.type === "assistant.retry" ? [event.data.errorMessage] : [],
    );
    expect({ outcome, retries }).toEqual({
      outcome: { stopReason: "end_turn" },
      retries: [
        anthropic
          ? "the server answered HTTP 200 with an error body (overloaded_error): Overloaded"
          : "the server answered HTTP 200 with an error body (rate_limit_exceeded): slow down",
      ],
    });
  });
});
