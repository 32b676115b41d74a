import { APICallError, LoadAPIKeyError } from "@ai-sdk/provider";
import { describe, expect, test } from "vitest";
import { classifyFailure } from "../../src/llm/errors.js";
import { boundedMessage } from "../../src/llm/failure-words.js";
import { parseRetryAfter } from "../../src/llm/http-headers.js";
import { redactSecrets } from "../../src/llm/shown-values.js";

function apiCallError(
  statusCode: number | undefined,
  message: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): APICallError {
  return new APICallError({
    message,
    url: "http://127.0.0.1/v1/chat/completions",
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(options.headers === undefined ? {} : { responseHeaders: options.headers }),
    ...(options.body === undefined ? {} : { responseBody: options.body }),
  });
}

/** A Node fetch failure: a TypeError whose cause carries the socket error code. */
function fetchFailure(code: string): TypeError {
  const cause = Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });
  return new TypeError("fetch failed", { cause });
}

describe("classifyFailure (case 17 categories, case 18 retryability)", () => {
  test.each([
    [401, "invalid api key", "authentication", false],
    [403, "forbidden", "authentication", false],
    [400, "model 'x' does not exist", "invalid_request", false],
    [404, "no such endpoint", "invalid_request", false],
    [422, "bad schema", "invalid_request", false],
    [429, "rate limited", "rate_limit", true],
    [408, "request timeout", "server", true],
    [500, "boom", "server", true],
    [502, "bad gateway", "server", true],
    [503, "unavailable", "server", true],
    [524, "a timeout occurred", "server", true],
    [529, "Overloaded", "overloaded", true],
  ] as const)("HTTP %i (%s) is %s, retryable %s", (status, message, errorType, retryable) => {
    const failure = classifyFailure(apiCallError(status, message));
    expect(failure).toEqual({
      errorType,
      statusCode: status,
      // A 404 names the URL asked (http-404-words.test.ts: the model and a base URL's usual cause).
      message:
        status === 404
          ? `HTTP 404 from http://127.0.0.1/v1/chat/completions: ${message}`
          : `HTTP ${status}: ${message}`,
      retryable,
    });
  });

  // A spent quota or credit is not a rate limit: a script retrying `rate_limit` later would send it
  // again, and turnloop does not (trial 41's verification, L1).
  test.each([
    [429, "You exceeded your current quota", '{"error":{"type":"insufficient_quota"}}'],
    [402, "Insufficient credits", '{"error":{"code":402,"message":"Insufficient credits"}}'],
    [400, "Your credit balance is too low to access the Anthropic API", ""],
  ] as const)("HTTP %i (%s) is quota, not retried", (status, message, body) => {
    const failure = classifyFailure(apiCallError(status, message, { body }));
    expect(failure).toEqual({
      errorType: "quota",
      statusCode: status,
      message: `HTTP ${status}: ${message}${body === "" || body.includes(message) ? "" : ` (${body})`}`,
      retryable: false,
    });
  });

  test("a body naming overloaded_error is overloaded whatever the status", () => {
    const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    const failure = classifyFailure(apiCallError(500, "Internal error", { body }));
    expect(failure).toMatchObject({ errorType: "overloaded", retryable: true, statusCode: 500 });
  });

  test("an API error without a status is a network failure", () => {
    expect(classifyFailure(apiCallError(undefined, "Cannot connect to API"))).toMatchObject({
      errorType: "network",
      retryable: true,
    });
  });

  test("the server's requested delay is carried for the retry policy", () => {
    const failure = classifyFailure(
      apiCallError(429, "slow down", { headers: { "retry-after": "7" } }),
    );
    expect(failure.retryAfterMs).toBe(7_000);
  });

  test("a missing API key is a configuration error, never retried", () => {
    const failure = classifyFailure(new LoadAPIKeyError({ message: "OpenAI API key is missing" }));
    expect(failure).toEqual({
      errorType: "configuration",
      message: "OpenAI API key is missing",
      retryable: false,
    });
  });

  test.each(["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET"])(
    "a fetch failure (%s) is a retryable network error that names the cause",
    (code) => {
      const failure = classifyFailure(fetchFailure(code));
      expect(failure).toMatchObject({ errorType: "network", retryable: true });
      expect(failure.message).toContain(code);
    },
  );

  // The connection failures a test's sockets cannot make here at will (a resolver that does not
  // answer, no route, an expired certificate), in the shape the AI SDK gives them: its "Cannot
  // connect to API" error with the request's URL, caused by the fetch's, caused by the socket's.
  // The rest go through real sockets: test/cli/connection-failures.test.ts.
  const origin = "https://models.example.test";
  test.each([
    [
      "EAI_AGAIN",
      "getaddrinfo EAI_AGAIN models.example.test",
      "network",
      true,
      "the host models.example.test could not be looked up: DNS did not answer (EAI_AGAIN); check the network",
    ],
    [
      "EHOSTUNREACH",
      "connect EHOSTUNREACH 10.0.0.9:443",
      "network",
      true,
      "the host models.example.test cannot be reached (EHOSTUNREACH): check the network, a VPN or a firewall",
    ],
    [
      "ENETUNREACH",
      "connect ENETUNREACH 10.0.0.9:443",
      "network",
      true,
      `no network route to ${origin} (ENETUNREACH): check the network connection`,
    ],
    [
      "ETIMEDOUT",
      "connect ETIMEDOUT 10.0.0.9:443",
      "network",
      true,
      `${origin} did not answer: connect ETIMEDOUT 10.0.0.9:443 (ETIMEDOUT)`,
    ],
    [
      "CERT_HAS_EXPIRED",
      "certificate has expired",
      "configuration",
      false,
      `the TLS certificate of ${origin} was refused: certificate has expired (CERT_HAS_EXPIRED); check the base URL's host, or the server's certificate`,
    ],
    [
      "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
      "unable to get local issuer certificate",
      "configuration",
      false,
      `the TLS certificate of ${origin} is not trusted: unable to get local issuer certificate (UNABLE_TO_GET_ISSUER_CERT_LOCALLY); if the server is yours, give its certificate authority's file in NODE_EXTRA_CA_CERTS`,
    ],
  ] as const)(
    "a connection not made (%s) is said as what it is",
    (code, socketMessage, errorType, retryable, message) => {
      const socket = Object.assign(new Error(socketMessage), { code });
      const error = new APICallError({
        message: `Cannot connect to API: ${socketMessage}`,
        url: `${origin}/v1/chat/completions`,
        requestBodyValues: {},
        cause: new TypeError("fetch failed", { cause: socket }),
        isRetryable: true,
      });
      expect(classifyFailure(error)).toEqual({ errorType, message, retryable });
    },
  );

  test("a body cut off mid-stream (undici 'terminated') is a network error", () => {
    expect(classifyFailure(new Error("terminated"))).toMatchObject({
      errorType: "network",
      retryable: true,
    });
  });

  test("the OpenAI-compatible model's report of a body cut before its finish is a network error", () => {
    const failure = classifyFailure(new Error("Response stream ended without a finish reason."));
    expect(failure).toMatchObject({ errorType: "network", retryable: true });
  });

  test("an Anthropic error event streamed mid-response (a plain object) is overloaded", () => {
    const failure = classifyFailure({ type: "overloaded_error", message: "Overloaded" });
    expect(failure).toMatchObject({ errorType: "overloaded", retryable: true });
    expect(failure.message).toContain("overloaded_error");
  });

  test("anything else is a malformed response, not retried", () => {
    expect(classifyFailure(new Error("Type validation failed: choices"))).toEqual({
      errorType: "malformed_response",
      message: "Type validation failed: choices",
      retryable: false,
    });
    expect(classifyFailure("a string")).toMatchObject({ errorType: "malformed_response" });
  });

  test("the message is redacted and bounded", () => {
    const key = "sk-proj-ABCDEF0123456789abcdef0123456789";
    const failure = classifyFailure(apiCallError(401, `Incorrect API key provided: ${key}`));
    expect(failure.message).not.toContain(key);
    expect(failure.message).toContain("[redacted]");
    const long = classifyFailure(apiCallError(500, "<html>".padEnd(5_000, "x")));
    expect(long.message.length).toBeLessThan(600);
    expect(long.message).toMatch(/… \(\d+ more characters\)$/);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  test("reads retry-after-ms in milliseconds", () => {
    expect(parseRetryAfter({ "retry-after-ms": "1500" }, now)).toBe(1_500);
  });

  test("reads retry-after in seconds", () => {
    expect(parseRetryAfter({ "retry-after": "2" }, now)).toBe(2_000);
    expect(parseRetryAfter({ "retry-after": "0" }, now)).toBe(0);
  });

  test("reads retry-after as an HTTP date, relative to now", () => {
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, now)).toBe(30_000);
  });

  test("a date in the past means no wait", () => {
    expect(parseRetryAfter({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }, now)).toBe(0);
  });

  test("retry-after-ms wins over retry-after", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "3" }, now)).toBe(250);
  });

  test("absent or unreadable headers give no delay", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "soon" }, now)).toBeUndefined();
  });
});

describe("redactSecrets", () => {
  test.each([
    ["sk-1234567890abcdefghijklmnop", "sk-123456…[redacted]"],
    ["sk-proj-AbCdEf0123456789XyZ_-0123", "sk-proj-A…[redacted]"],
    ["sk-ant-api03-AbCdEf0123456789XyZ", "sk-ant-api03-…[redacted]"],
  ])("an API key %s keeps only a recognisable prefix", (key, expected) => {
    const text = redactSecrets(`invalid key ${key} given`);
    expect(text).toBe(`invalid key ${expected} given`);
  });

  test("bearer tokens", () => {
    expect(redactSecrets("Authorization: Bearer eyJhbGciOi.abc.def123")).toBe(
      "Authorization: Bearer [redacted]",
    );
    expect(redactSecrets("authorization: bearer abcdefgh12345678")).toBe(
      "authorization: bearer [redacted]",
    );
  });

  test("credentials in query strings", () => {
    expect(
      redactSecrets("GET https://host/v1/models?key=AIzaSyA-secret-value&alt=sse failed"),
    ).toBe("GET https://host/v1/models?key=[redacted]&alt=sse failed");
    expect(redactSecrets('url "https://h/x?a=1&api_key=s3cr3t" and &access_token=t0k3n')).toBe(
      'url "https://h/x?a=1&api_key=[redacted]" and &access_token=[redacted]',
    );
  });

  test("a URL's password, and a lone user name (often a token) but a database URL's role", () => {
    expect(
      redactSecrets(
        "at http://user:pw36@host:9/v1, https://ghp_token123@git.host/x, http://u:p@ss@h/ and postgres://turnloop@db/x)",
      ),
    ).toBe(
      "at http://user:***@host:9/v1, https://***@git.host/x, http://u:***@h/ and postgres://turnloop@db/x)",
    );
  });

  test("ordinary text is left alone", () => {
    const text = "HTTP 400: model 'gpt-x' does not exist; task-list and ask-me are fine";
    expect(redactSecrets(text)).toBe(text);
  });

  test("boundedMessage collapses whitespace before bounding", () => {
    expect(boundedMessage("  line one\n\n  line two  ")).toBe("line one line two");
  });
});
