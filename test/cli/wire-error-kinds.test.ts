import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";
import { CASES, type Case, caseOf, EXPECTED, errorAfterText } from "../support/wire-error-cases.js";

// What a script reads of a model's error, on each wire: `-p --output-format json`'s `error.type`
// and words, and whether the prompt was sent again (README, "Choosing a model" and "JSON output").
// One case a wire through the built CLI, an error inside its event stream; every wire × every way
// it says an error × every kind runs in-process in test/llm/wire-error-kinds.test.ts.
// Trial 42 F1: the Responses API's events were typed by the event's own type ("error"), `server`.

async function run(cli: CliFixtures["cli"], url: string, one: Pick<Case, "model" | "prompt">) {
  const result = await cli(
    ["--model", one.model, "--base-url", `${url}/v1`, "-p", one.prompt, "--output-format", "json"],
    {
      env: {
        OPENAI_API_KEY: "sk-test-key",
        ANTHROPIC_API_KEY: "sk-test-key",
        TURNLOOP_RETRY_BASE_DELAY_MS: "5",
        TURNLOOP_MAX_RETRIES: "1",
      },
    },
  );
  const parsed = JSON.parse(result.stdout) as { error?: { type: string; message: string } };
  return { code: result.code, error: parsed.error };
}

/** The case of `wire`, `way` and `kind`. */
function caseFor(wire: string, way: string, kind: string): Case {
  const found = CASES.find((one) => one.wire === wire && one.way === way && one.kind === kind);
  if (found === undefined) {
    throw new Error(`no case ${wire} ${way} ${kind}`);
  }
  return found;
}

describe("a model's error in its event stream, in -p's JSON result", () => {
  test("is typed by its own code or type on each wire, and sent again only when transient", async ({
    cli,
    model,
  }) => {
    model.setResponder((request) => caseOf(request)?.reply ?? { status: 500, body: "no case" });
    const cases = [
      caseFor("responses", "error event", "quota"),
      caseFor("responses", "response.failed", "invalid"),
      caseFor("anthropic", "error event", "server"),
      caseFor("chat", "error chunk", "rate_limit"),
    ];
    const seen = [];
    for (const one of cases) {
      const { code, error } = await run(cli, model.url, one);
      const requests = model.requests.filter((request) => caseOf(request) === one).length;
      seen.push({ code, ...error, requests });
    }
    expect(seen).toEqual([
      {
        code: 1,
        type: "quota",
        message:
          "the server reported an error in its event stream (insufficient_quota): You exceeded your current plan.",
        requests: EXPECTED.quota.requests,
      },
      {
        code: 1,
        type: "invalid_request",
        message:
          "the server reported an error in its event stream (invalid_prompt): Invalid prompt.",
        requests: EXPECTED.invalid.requests,
      },
      {
        code: 1,
        type: "overloaded",
        message: expect.stringContaining("Overloaded"),
        requests: EXPECTED.server.requests,
      },
      {
        code: 1,
        type: "rate_limit",
        message: expect.stringContaining("Rate limit reached for requests"),
        requests: EXPECTED.rate_limit.requests,
      },
    ]);
  });

  test("after text was shown: typed by its own code the same, and never sent again", async ({
    cli,
    model,
  }) => {
    model.setResponder(() => ({ raw: errorAfterText("quota") }));
    const result = await run(cli, model.url, { model: "openai:gpt-5", prompt: "after text" });
    expect({ ...result, type: result.error?.type, requests: model.requests.length }).toMatchObject({
      code: 1,
      type: "quota",
      requests: 1,
    });
  });
});
