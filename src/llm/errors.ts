/**
 * What a model request's failure is ({@link classifyFailure}: its category, whether it is
 * retried) and the retry policy that acts on it (case 18); failure-words.ts says it in words.
 */

import {
  APICallError,
  JSONParseError,
  LoadAPIKeyError,
  TypeValidationError,
} from "@ai-sdk/provider";
import type { ErrorType } from "../events/events.js";
import { errorKindsOf, statusOfError } from "./error-kind.js";
import {
  boundedMessage,
  brokenStreamFailure,
  brokenStreamReason,
  causeChain,
  closedBeforeAnswerFailure,
  connectionFailure,
  ENDED_EARLY,
  malformedEvent,
  malformedReply,
  messageOf,
  plainStreamError,
  streamErrorWords,
} from "./failure-words.js";
import { parseRetryAfter } from "./http-headers.js";
import { baseUrlHint, httpStatusWords, unknownModelOf } from "./http-status-words.js";
import type { ProviderFailure } from "./provider.js";

/** A failure with what the retry policy needs besides the public {@link ProviderFailure}. */
export interface ClassifiedFailure extends ProviderFailure {
  errorType: ErrorType;
  retryable: boolean;
  /** Delay the server asked for (`retry-after-ms`, `retry-after` seconds or HTTP date), in ms. */
  retryAfterMs?: number;
  /** A lower cap than the policy's on retries of this failure (connection refused: 1). */
  maxRetries?: number;
}

/**
 * Turns anything a provider call threw or streamed as an error into a categorised, bounded,
 * redacted failure (case 17). Retryable: 408, 409, 429, 5xx, 529 and `overloaded_error`, and
 * network failures (case 18); never a quota or billing error ({@link isQuotaError}), whatever its
 * status.
 */
export function classifyFailure(error: unknown): ClassifiedFailure {
  const unsendable = requestThatCannotSucceed(error);
  if (unsendable !== undefined) {
    return unsendable;
  }
  const broken =
    malformedReply(error) ??
    brokenStream(error) ??
    closedBeforeAnswer(error) ??
    connectionFailure(error);
  if (broken !== undefined) {
    return broken;
  }
  if (APICallError.isInstance(error)) {
    return apiCallFailure(error);
  }
  const refused = refusedErrorEvent(error);
  if (refused !== undefined) {
    return refused;
  }
  const malformed = malformedEvent(error);
  if (malformed !== undefined) {
    // An event that is not JSON was torn or garbled on its way (a proxy): a network failure, as a
    // stream that broke off is, sent again; JSON of another wire's shape would come again.
    const torn = JSONParseError.isInstance(error);
    return {
      errorType: torn ? "network" : "malformed_response",
      message: boundedMessage(malformed),
      retryable: torn,
    };
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return { errorType: "configuration", message: boundedMessage(error.message), retryable: false };
  }
  const plain = plainStreamError(error);
  const text = plain ?? messageOf(error);
  if (isContextLengthError(text)) {
    // Some servers report the overflow inside an otherwise successful stream.
    return {
      errorType: "context_length_exceeded",
      message: boundedMessage(text),
      retryable: false,
    };
  }
  if (plain !== undefined) {
    return plainStreamFailure(error as Record<string, unknown>, plain);
  }
  // Anthropic and gateways stream `{"type":"error","error":{"type":"overloaded_error"}}` mid-response.
  if (/overloaded/i.test(text)) {
    return { errorType: "overloaded", message: boundedMessage(text), retryable: true };
  }
  if (isNetworkError(error)) {
    return { errorType: "network", message: boundedMessage(text), retryable: true };
  }
  return { errorType: "malformed_response", message: boundedMessage(text), retryable: false };
}

/**
 * A Responses API `error` or `response.failed` event the AI SDK's schema refused (no
 * `sequence_number`; the error nested under `error`, its `type` and `code` null) that carries the
 * server's message: that error, said and typed as any in-stream error ({@link plainStreamFailure}),
 * not a malformed answer that hides why the server failed (round 3, session 43, N4).
 */
function refusedErrorEvent(error: unknown): ClassifiedFailure | undefined {
  if (!TypeValidationError.isInstance(error)) {
    return undefined;
  }
  const event = asRecord(error.value);
  if (event === undefined || (event.type !== "error" && event.type !== "response.failed")) {
    return undefined;
  }
  const inner = asRecord(asRecord(event.response)?.error) ?? asRecord(event.error) ?? event;
  return typeof inner.message === "string"
    ? plainStreamFailure(event, streamErrorWords(errorKindsOf(event)[0], inner.message))
    : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An HTTP answer's failure (or an in-stream `error` event the AI SDK reports as one). */
function apiCallFailure(error: APICallError): ClassifiedFailure {
  const body = error.responseBody ?? "";
  const providerMessage = error.message || body;
  const inStream = inStreamError(error);
  // An in-stream error's status is made up: the status its own code or type names counts.
  const statusCode = error.statusCode;
  const errorType = categoryOfStatus(
    inStream === undefined ? statusCode : statusOfError(body),
    `${providerMessage} ${body}`,
  );
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  const unknownModel =
    inStream === undefined && statusCode !== undefined
      ? unknownModelOf(error, statusCode)
      : undefined;
  return {
    errorType,
    ...(inStream === undefined ? { statusCode } : {}),
    ...(unknownModel === undefined ? {} : { unknownModel }),
    message: boundedMessage(
      inStream ?? (statusCode === undefined ? providerMessage : httpStatusWords(error, statusCode)),
    ),
    retryable:
      errorType !== "quota" &&
      (isRetryableType(errorType) || (inStream === undefined && error.isRetryable)),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/**
 * The words for an `error` event inside an event stream the server answered with (HTTP 200),
 * which the AI SDK's providers report as an APICallError with a made-up status (Anthropic's: 529
 * for `overloaded_error`, else 500; OpenAI's: its own reading of the code) and the event (or its
 * `error`) as the body; the answer's `text/event-stream` content type tells it from a real status.
 * The error's own code or type (error-kind.ts) is named in brackets. Undefined for anything else.
 */
function inStreamError(error: APICallError): string | undefined {
  const contentType = error.responseHeaders?.["content-type"] ?? "";
  if (!/^\s*text\/event-stream\b/i.test(contentType)) {
    return undefined;
  }
  return streamErrorWords(errorKindsOf(error.responseBody ?? "")[0], error.message);
}

/**
 * An error a provider reported inside its event stream after the answer began (HTTP 200), which
 * the AI SDK passes on as a plain object: Anthropic's `error` event (`api_error`,
 * `overloaded_error` …), an OpenAI Chat or compatible chunk's `error` object (`server_error` …),
 * the Responses API's `error` event and `response.failed`; also a 200 answer whose body is an
 * error (answer-shape.ts). Categorised as the HTTP status its own code or type stands for would
 * be (error-kind.ts `statusOfError`, the one table; case 18, one rule on every wire) and retried
 * as that status is, except a quota error; the loop retries only while nothing of the attempt
 * was shown.
 */
export function plainStreamFailure(
  error: Record<string, unknown>,
  text: string,
): ClassifiedFailure {
  const kind = errorKindsOf(error).join(" ");
  const errorType = categoryOfStatus(statusOfError(error), `${text} ${kind}`);
  return { errorType, message: boundedMessage(text), retryable: isRetryableType(errorType) };
}

/**
 * Failures no retry can fix, found anywhere in the error's cause chain: a web page for an answer,
 * a key that is not a valid header value (e.g. the `…` of a copied placeholder), a URL fetch
 * cannot use (invalid, unknown scheme, a port fetch blocks). A connection that could not be made
 * (a name DNS does not know, nothing listening, TLS refusing the server) is
 * failure-words.ts `connectionFailure`'s.
 */
function requestThatCannotSucceed(error: unknown): ClassifiedFailure | undefined {
  const chain = causeChain(error);
  const text = chain.map((item) => item.message).join(" ");
  const url = chain
    .map((item) => (item as { url?: unknown }).url)
    .find((value) => typeof value === "string");
  const configuration = (message: string): ClassifiedFailure => ({
    errorType: "configuration",
    message: boundedMessage(message),
    retryable: false,
  });
  const webPage = chain.find((item) => item.name === "WebPageAnswerError");
  if (webPage !== undefined) {
    return configuration(`${webPage.message}${url === undefined ? "" : ` (${url})`}`);
  }
  if (/Cannot convert argument to a ByteString|invalid header value/i.test(text)) {
    return configuration(
      "the API key contains characters that cannot be sent in an HTTP header (a placeholder such as sk-… copied from an example?); set the real key",
    );
  }
  if (/Invalid URL|Failed to parse URL|unknown scheme|bad port|ERR_INVALID_URL/i.test(text)) {
    const reason = chain.at(-1)?.message ?? text;
    return configuration(
      `the base URL cannot be used${url === undefined ? "" : ` (${url})`}: ${reason}`,
    );
  }
  return undefined;
}

/**
 * A stream that broke off after the server answered: the AI SDK's error for a 2xx body that
 * failed ("Failed to process successful response", issue 11), the body's own error (undici's and
 * http-response.ts's `TypeError("terminated")`), or the OpenAI-compatible model's report of a body
 * that ended before a finish reason. Undefined for anything else.
 */
function brokenStream(error: unknown): ClassifiedFailure | undefined {
  if (APICallError.isInstance(error) && isSuccessStatus(error.statusCode)) {
    return brokenStreamFailure(brokenStreamReason(error.cause ?? error));
  }
  if (!(error instanceof Error)) {
    return undefined;
  }
  if (error.message === "terminated") {
    return brokenStreamFailure(brokenStreamReason(error.cause ?? error));
  }
  if (/stream ended without a finish reason/i.test(error.message)) {
    return brokenStreamFailure(ENDED_EARLY);
  }
  return undefined;
}

/** The codes of a connection the other side closed or reset (Node's net and http, undici). */
const CLOSED_CONNECTION_CODES = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"];

/**
 * A request whose connection the server closed or reset before any answer (no status: a
 * response that began and broke off is {@link brokenStream}'s): the failed fetch's cause chain
 * (http-fetch.ts: `TypeError("fetch failed")` and the socket's error, which the AI SDK wraps as
 * "Cannot connect to API: <the socket's error>") has ECONNRESET, EPIPE or undici's socket error.
 * The connection was made, so it is not said as a failure to connect. Retried: nothing was shown,
 * and the server either never read the request or dropped it (a restart, a proxy's idle cut of a
 * reused connection), which sending it again is the usual answer to (the AI SDK marks it
 * retryable; the vendors' SDKs retry it). Undefined for anything else.
 */
function closedBeforeAnswer(error: unknown): ClassifiedFailure | undefined {
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    return undefined;
  }
  const chain = causeChain(error);
  const codes = chain.map((item) => (item as NodeJS.ErrnoException).code);
  const closed = CLOSED_CONNECTION_CODES.some((code) => codes.includes(code));
  return closed ? closedBeforeAnswerFailure(chain.at(-1)?.message ?? "ECONNRESET") : undefined;
}

function isSuccessStatus(statusCode: number | undefined): boolean {
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300;
}

/**
 * How servers say a request did not fit the context window: OpenAI (Chat and Responses)
 * `context_length_exceeded` / "maximum context length is N tokens" (vLLM and LiteLLM reuse it),
 * "exceeds the context window"; Anthropic "prompt is too long: N tokens > M maximum" and "input
 * length and `max_tokens` exceed context limit"; Ollama "the input length exceeds the context
 * length"; llama.cpp's server "exceeds the available context size" (`exceed_context_size_error`);
 * vLLM "is longer than the maximum model length".
 */
const CONTEXT_LENGTH_PATTERNS: readonly RegExp[] = [
  /context_length_exceeded/i,
  /maximum context length/i,
  /exceeds? the context window/i,
  /prompt is too long/i,
  /exceed context limit/i,
  /input length exceeds the (?:maximum )?context length/i,
  /exceeds? the available context size|exceed_context_size_error/i,
  /longer than the maximum model length/i,
];

/** Whether a provider's error text says the request was larger than the context window. */
export function isContextLengthError(text: string): boolean {
  return CONTEXT_LENGTH_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * How servers say the account's quota or credit is spent, which no retry fixes until someone pays
 * or raises a limit: OpenAI's `insufficient_quota` (HTTP 429, "You exceeded your current quota,
 * please check your plan and billing details") and `billing_hard_limit_reached`, Anthropic's
 * `billing_error` and "Your credit balance is too low to access the Anthropic API" (HTTP 400); any
 * HTTP 402 is one too.
 */
const QUOTA_PATTERN =
  /insufficient_quota|billing_hard_limit_reached|billing_error|exceeded your current quota|credit balance is too low/i;

/** Whether a provider's error text says the account's quota or credit is spent. */
export function isQuotaError(text: string): boolean {
  return QUOTA_PATTERN.test(text);
}

function categoryOfStatus(statusCode: number | undefined, text: string): ErrorType {
  if (statusCode === undefined) {
    return "network";
  }
  // 402 Payment Required: a gateway's word for credits spent (OpenRouter's "Insufficient credits").
  if (statusCode === 402 || (statusCode >= 400 && statusCode < 500 && isQuotaError(text))) {
    return "quota";
  }
  if (
    (statusCode === 400 || statusCode === 413 || statusCode >= 500) &&
    isContextLengthError(text)
  ) {
    // Ollama answers 500 for some context overflows; 413 is a gateway's "payload too large".
    return "context_length_exceeded";
  }
  if (statusCode === 529 || /overloaded/i.test(text)) {
    return "overloaded";
  }
  // 407: a proxy (a gateway at the base URL) asking for its own credentials.
  if (statusCode === 401 || statusCode === 403 || statusCode === 407) {
    return "authentication";
  }
  if (statusCode === 429) {
    return "rate_limit";
  }
  if (statusCode === 408 || statusCode >= 500) {
    return "server";
  }
  return "invalid_request";
}

function isRetryableType(errorType: ErrorType): boolean {
  return (
    errorType === "rate_limit" ||
    errorType === "overloaded" ||
    errorType === "server" ||
    errorType === "network" ||
    errorType === "stalled"
  );
}

function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return (
    error.message === "fetch failed" ||
    code === "ECONNRESET" ||
    code === "ECONNREFUSED" ||
    code === "UND_ERR_SOCKET" ||
    error.name === "TypeError" ||
    // The OpenAI-compatible model's own report of a body that ended before a finish_reason.
    /terminated|socket hang up|ECONNRESET|stream ended without a finish reason/i.test(error.message)
  );
}

/**
 * A successful answer that is a web page (`text/html`): no model API answers so, a proxy's or
 * captive portal's page, or a base URL that names a website rather than its API, does. Thrown by
 * http-fetch.ts `httpExchange` before the AI SDK reads the page as a broken event stream (which it
 * reports as a stream that "ended without a finish reason", and which was retried); `url` is the
 * page's, after redirects.
 */
export class WebPageAnswerError extends Error {
  override readonly name = "WebPageAnswerError";
  /** `requestPath`: the path turnloop asked for (`/v1/messages` …), which names the wire. */
  constructor(
    readonly url: string,
    contentType: string,
    requestPath: string,
  ) {
    super(
      `the server answered with a web page (${contentType.split(";")[0]?.trim()}), not the model API: check the base URL (${baseUrlHint(requestPath)}) or a proxy in between`,
    );
  }
}
