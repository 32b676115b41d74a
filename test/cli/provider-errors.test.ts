import { lookup } from "node:dns/promises";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";

// Errors no retry can fix are not retried, and say what to do; through the built CLI. The words
// of each key, and each wire's, are test/llm/provider-error-wires.test.ts (in-process, the same
// resolution and wires); here one case of each kind shows what `-p` makes of them.

/** `turnloop --model modelId --base-url baseUrl -p hi` with `key` for both vendors, retrying fast. */
function run(cli: CliFixtures["cli"], modelId: string, baseUrl: string, key = "sk-test-key") {
  return cli(["--model", modelId, "--base-url", baseUrl, "-p", "hi"], {
    env: { OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key, TURNLOOP_RETRY_BASE_DELAY_MS: "5" },
  });
}

/** What `-p` showed: its exit code, its stdout and {@link errorLines} of its stderr. */
function shown(result: { code: number | null; stdout: string; stderr: string }) {
  return { code: result.code, stdout: result.stdout, lines: errorLines(result.stderr) };
}

/** {@link shown} of a prompt answered "after" once its one retry, for `words`, was said. */
function answeredAfterOneRetry(words: string) {
  return {
    code: 0,
    stdout: "after\n",
    lines: [`turnloop: warning: retrying in N s (attempt 1): ${words}`],
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        resolve(typeof address === "object" && address !== null ? address.port : 0),
      );
    });
  });
}

/**
 * The `turnloop:` and retry lines of `stderr`, retry waits and durations as `N s` and session
 * ids as `<id>` (neither is asserted).
 */
function errorLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => /^(turnloop|retrying)/.test(line))
    .map((line) =>
      line
        .replace(/(?<=retrying in )\d+(?:\.\d)? (?:ms|s|min)|\d+\.\d s/, "N s")
        .replace(/--resume [0-9a-f-]{36}/, "--resume <id>"),
    );
}

describe("errors that cannot succeed on retry", () => {
  test("a key with a character HTTP cannot carry (the README's … placeholder) is named before any request", async ({
    cli,
    model,
    home,
  }) => {
    const result = await run(cli, "anthropic:claude-sonnet-4-5", `${model.url}/v1`, "sk-ant-…");
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 64,
      stdout: "",
      stderr:
        "turnloop: the API key in ANTHROPIC_API_KEY contains characters that cannot be sent in an HTTP header (a placeholder such as sk-… copied from an example?); set your real key.\n",
    });
    expect(model.requests).toHaveLength(0);
    // Nothing was saved: no session began.
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });

  // A usage error (64, README's exit table): known before any request, nothing stored.
  test("the README's '<your Anthropic key>' placeholder is named before any request", async ({
    cli,
    model,
    home,
  }) => {
    const key = "<your Anthropic key>";
    const result = await run(cli, "anthropic:claude-sonnet-4-5", `${model.url}/v1`, key);
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 64,
      stdout: "",
      stderr: `turnloop: the API key in ANTHROPIC_API_KEY looks like a placeholder ("${key}"); set your real key.\n`,
    });
    expect(model.requests).toHaveLength(0);
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });

  // An invalid URL (a port past 65535) is a usage error before any session: base-url-check.test.ts.
  test("a blocked port is not retried", async ({ cli }) => {
    const badPort = await run(cli, "openai-chat:gpt-4.1", "http://127.0.0.1:6000/v1");
    expect(errorLines(badPort.stderr)).toEqual([
      "turnloop: the base URL cannot be used (http://127.0.0.1:6000/v1/chat/completions): bad port",
    ]);
  });

  // Session 37's closing note: an unknown host was a setting to fix, not retried and with no line
  // saying how to try again; DNS failures are network failures (llm/failure-words.ts
  // `connectionFailure`; every other way a connection fails: connection-failures.test.ts).
  test("an unknown host: sent again once, said as DNS said it, how to try again; the JSON result's error", async ({
    cli,
  }) => {
    // What this machine's resolver says of a name that cannot exist (RFC 2606's `.invalid`).
    const code = await lookup("no-such-host.invalid").then(
      () => "resolved",
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(code).not.toBe("resolved");
    const message =
      code === "EAI_AGAIN"
        ? "the host no-such-host.invalid could not be looked up: DNS did not answer (EAI_AGAIN); check the network"
        : "the host no-such-host.invalid was not found: DNS knows no such name (ENOTFOUND); check the model's base URL (http://no-such-host.invalid), or the network";
    const retries = code === "EAI_AGAIN" ? [1, 2, 3, 4, 5] : [1];
    const unknownHost = await run(cli, "openai-chat:gpt-4.1", "http://no-such-host.invalid/v1");
    const lines = errorLines(unknownHost.stderr);
    expect({ code: unknownHost.code, lines }).toEqual({
      code: 1,
      lines: [
        ...retries.map(
          (attempt) => `turnloop: warning: retrying in N s (attempt ${attempt}): ${message}`,
        ),
        `turnloop: ${message}`,
        'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
      ],
    });
    const json = await cli(
      ["--model", "openai-chat:gpt-4.1", "--base-url", "http://no-such-host.invalid/v1"].concat([
        "-p",
        "hi",
        "--output-format",
        "json",
      ]),
      { env: { OPENAI_API_KEY: "sk-test-key", TURNLOOP_RETRY_BASE_DELAY_MS: "5" } },
    );
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      stop_reason: null,
      num_turns: 1,
      error: { type: "network", message },
    });
  });

  test("401, 403 and 404 (model not found) are answered after one request", async ({
    cli,
    model,
  }) => {
    for (const status of [401, 403, 404]) {
      model.enqueue({ status, body: { error: { message: `status ${status} from the server` } } });
      const before = model.requests.length;
      const result = await run(cli, "openai-compatible:fake-model", `${model.url}/v1`);
      expect(result.code).toBe(1);
      expect(model.requests.length - before).toBe(1);
      expect(errorLines(result.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            status === 404
              ? `^turnloop: HTTP 404 from ${model.url}/v1/chat/completions \\(model "fake-model"\\): status 404 from the server; the server has no model "fake-model": choose another with --model or TURNLOOP_MODEL$`
              : `^turnloop: HTTP ${status}: .*status ${status} from the server`,
          ),
        ),
      ]);
    }
  });

  // A fresh user's trial (round 3, session 19, #13): a proxy's page answered with 200 was read
  // as a broken event stream ("Response stream ended without a finish reason.") and retried.
  test("a web page answered with 200 (a proxy, a website's base URL) is said after one request, with its wire's base URL", async ({
    cli,
    model,
  }) => {
    model.enqueue({
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: "<!doctype html><html><title>Sign in to the proxy</title></html>",
    });
    const result = await run(cli, "openai-compatible:fake-model", `${model.url}/v1`);
    expect({
      requests: model.requests.length,
      code: result.code,
      lines: errorLines(result.stderr),
    }).toEqual({
      requests: 1,
      code: 1,
      lines: [
        `turnloop: the server answered with a web page (text/html), not the model API: check the base URL (an OpenAI-compatible one usually ends in /v1) or a proxy in between (${model.url}/v1/chat/completions)`,
      ],
    });
  });

  // Found by the session-19 fixes lane: TURNLOOP_BASE_URL="" made a request to "" and failed with
  // "Invalid URL" (exit 1, a turn recorded); an empty variable is an unset one, as the run config
  // reads it, so the endpoint is missing: a usage error before anything is stored.
  test("an empty TURNLOOP_BASE_URL is unset: the endpoint is asked for, nothing stored", async ({
    cli,
    model,
    home,
  }) => {
    const result = await cli(["-p", "hi"], { env: { TURNLOOP_BASE_URL: "" } });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 64,
      stderr:
        "turnloop: openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set --base-url or TURNLOOP_BASE_URL.\n",
    });
    expect(model.requests).toHaveLength(0);
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });

  test("a refused connection to a local server: 2 attempts, then 'nothing is listening'", async ({
    cli,
  }) => {
    const port = await freePort();
    const result = await run(cli, "openai-compatible:local", `http://127.0.0.1:${port}/v1`);
    expect(result.code).toBe(1);
    const message = `nothing is listening at http://127.0.0.1:${port} — is the server running?`;
    const lines = errorLines(result.stderr);
    expect(lines).toEqual([
      `turnloop: warning: retrying in N s (attempt 1): ${message}`,
      `turnloop: ${message}`,
      // Once the server runs (failed-prompt-resend.test.ts).
      'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
    ]);
  });
});

describe("errors inside an answered stream", () => {
  // The trial of round 3, session 25 (#6): an Anthropic `error` event in an HTTP 200 stream was
  // said as `HTTP 529: Overloaded mid-stream`, a status the server never sent.
  test("an Anthropic error event in a 200 stream is said as the stream's error, then retried", async ({
    cli,
    model,
  }) => {
    const event = `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded mid-stream" } })}\n\n`;
    model.enqueue({ raw: [event] }, { text: "after" });
    const result = await run(cli, "anthropic:claude-sonnet-4-5", `${model.url}/v1`);
    expect(shown(result)).toEqual(
      answeredAfterOneRetry(
        "the server reported an error in its event stream (overloaded_error): Overloaded mid-stream",
      ),
    );
  });

  // The trial of round 3, session 26 (#11): the same event on the OpenAI-compatible wire (and an
  // OpenAI-shaped error chunk, `{"error": {…}}`) was said as raw JSON, `{"message":…,"type":…}`.
  test("an error chunk on the OpenAI-compatible wire is said in the same words, its kind in brackets", async ({
    cli,
    model,
  }) => {
    const anthropicShaped = `data: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded mid-stream" } })}\n\n`;
    const openaiShaped = `data: ${JSON.stringify({ error: { message: "The server had an error", type: "server_error", code: null } })}\n\n`;
    // Both are retried as their HTTP statuses would be (529, 500): nothing was shown yet.
    model.enqueue({ raw: [anthropicShaped] }, { raw: [openaiShaped] }, { text: "recovered" });
    const result = await run(cli, "openai-compatible:local", `${model.url}/v1`);
    expect(shown(result)).toEqual({
      code: 0,
      stdout: "recovered\n",
      lines: [
        "turnloop: warning: retrying in N s (attempt 1): the server reported an error in its event stream (overloaded_error): Overloaded mid-stream",
        "turnloop: warning: retrying in N s (attempt 2): the server reported an error in its event stream (server_error): The server had an error",
      ],
    });
  });
});

// Trial 41 (F12): a gateway answering a streaming request with HTTP 200 and a JSON error body was
// said as "the model's stream broke off" and sent again as a network failure; its words were lost.
describe("an error body answered with HTTP 200", () => {
  test("is said in the server's words; a quota error is not sent again", async ({ cli, model }) => {
    const quota = { error: { message: "quota exceeded for this key", type: "insufficient_quota" } };
    model.setResponder(() => ({ status: 200, body: quota }));
    const result = await run(cli, "openai-compatible:fake-model", `${model.url}/v1`);
    expect({
      code: result.code,
      requests: model.requests.length,
      lines: errorLines(result.stderr),
    }).toEqual({
      code: 1,
      requests: 1,
      lines: [
        "turnloop: the server answered HTTP 200 with an error body (insufficient_quota): quota exceeded for this key",
        'turnloop: the prompt is kept in the session: to try again, turnloop -p --resume <id> "continue"',
      ],
    });
  });

  test("a rate limit in such a body is sent again", async ({ cli, model }) => {
    const body = { error: { message: "slow down", type: "rate_limit_exceeded" } };
    model.enqueue({ status: 200, body }, { text: "after" });
    const result = await run(cli, "openai-compatible:fake-model", `${model.url}/v1`);
    expect(shown(result)).toEqual(
      answeredAfterOneRetry(
        "the server answered HTTP 200 with an error body (rate_limit_exceeded): slow down",
      ),
    );
  });
});
