/**
 * How a model request's failure is said to a user (every face, the log's `session.error`): bounded
 * and redacted text, a broken stream's one wording, a malformed stream event quoted, a connection
 * that could not be made. errors.ts decides what a failure is; this says it.
 */

import { APICallError, JSONParseError, TypeValidationError } from "@ai-sdk/provider";
import { errorCode } from "../events/errors.js";
import { errorKindsOf } from "./error-kind.js";
import type { ClassifiedFailure } from "./errors.js";
import { redactSecrets } from "./shown-values.js";

/** Longest error message we pass on (characters): provider bodies can be huge HTML pages. */
const MAX_MESSAGE_LENGTH = 500;

/**
 * The words every face uses for a reply whose stream stopped before the reply's end (the
 * terminal, `-p`'s stderr, ACP's error, the log's `session.error`): one rule, here.
 */
const BROKEN_STREAM = "the model's stream broke off";

/**
 * A model stream that broke off: `reason` says how, in a user's words (the connection closed,
 * the response ended early), never in the HTTP layer's ("terminated: aborted"). A network
 * failure: retried while nothing of the reply has been shown.
 */
export function brokenStreamFailure(reason: string): ClassifiedFailure {
  return {
    errorType: "network",
    message: boundedMessage(`${BROKEN_STREAM}: ${reason}`),
    retryable: true,
  };
}

/**
 * A connection the model server closed or reset after the request was sent and before any byte
 * of its answer (the HTTP layer's ECONNRESET: "socket hang up", "read ECONNRESET"; undici's
 * "other side closed"; EPIPE while the request was written), or while connecting ("connect
 * ECONNRESET"): said as that, not as a failure to
 * connect (the AI SDK's "Cannot connect to API: …"), with the HTTP layer's word as `detail`. A
 * network failure, retried as any: nothing of a reply has been shown, and a model request
 * changes nothing on the server but its bill (errors.ts `closedBeforeAnswer` says why retried).
 */
export function closedBeforeAnswerFailure(detail: string): ClassifiedFailure {
  // A reset while connecting ("connect ECONNRESET …"): no request was sent yet.
  const when = /^connect /.test(detail)
    ? "reset the connection while it was being made"
    : "closed the connection after the request was sent, before answering";
  return {
    errorType: "network",
    message: boundedMessage(`the model server ${when} (${detail})`),
    retryable: true,
  };
}

/** A response that ended without its wire's end of reply (a finish reason, `[DONE]`, …). */
export const ENDED_EARLY = "the response ended before the reply was complete";

/** Messages of the HTTP layer that say only that the connection went away. */
const CONNECTION_CLOSED =
  /^(?:terminated|aborted|other side closed|socket hang up|read ECONNRESET)$/i;

/**
 * How a stream broke, from its error's cause chain: the connection timed out, the connection
 * closed (reset, or closed by the other side: the HTTP layer's words for it say nothing more), or
 * the deepest cause's own message when it says something else.
 */
export function brokenStreamReason(cause: unknown): string {
  const chain = causeChain(cause);
  const codes = chain.map((item) => (item as NodeJS.ErrnoException).code);
  if (codes.includes("ETIMEDOUT") || chain.some((item) => item.name === "TimeoutError")) {
    return "the connection timed out (ETIMEDOUT)";
  }
  const closed = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"].some((code) => codes.includes(code));
  const deepest = chain.at(-1)?.message ?? "";
  if (closed || deepest === "" || CONNECTION_CLOSED.test(deepest)) {
    return "the connection closed before the reply was complete";
  }
  return deepest;
}

/** Characters of a malformed event quoted in its failure's message. */
const QUOTED_EVENT_LENGTH = 200;

/**
 * What was wrong with a stream event the provider could not read: not JSON (the AI SDK's
 * `JSONParseError`), or JSON of a shape its wire does not have (`TypeValidationError`, its first
 * schema issue and where). The SDK's own messages repeat their cause and quote the whole zod report.
 */
export function malformedEvent(error: unknown): string | undefined {
  if (JSONParseError.isInstance(error)) {
    const reason = error.cause instanceof Error ? error.cause.message : "not JSON";
    return `the model server sent a stream event that is not JSON (${reason}): ${quoted(error.text)}`;
  }
  if (TypeValidationError.isInstance(error)) {
    const value = JSON.stringify(error.value) ?? String(error.value);
    const issue = firstIssue(error.cause);
    return `the model server sent a stream event the wire does not have${issue === undefined ? "" : ` (${issue})`}: ${quoted(value)}`;
  }
  return undefined;
}

/**
 * A successful answer to a non-streaming request (one JSON body) that the provider could not
 * read: the AI SDK's `APICallError` "Invalid JSON response" for a 2xx status, whose cause is the
 * body's `JSONParseError` (not JSON: a proxy's text, a cut body) or `TypeValidationError` (JSON
 * of a shape its wire does not have). Said as what came (its status, content type and first
 * characters), not as a stream that broke off: there was no stream. A malformed response, not
 * retried, as a malformed stream event is not. Undefined for anything else.
 */
export function malformedReply(error: unknown): ClassifiedFailure | undefined {
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  if (status === undefined || status < 200 || status > 299 || !APICallError.isInstance(error)) {
    return undefined;
  }
  const contentType = error.responseHeaders?.["content-type"];
  const answer = `HTTP ${status}, ${contentType === undefined ? "no content type" : `content type ${contentType}`}`;
  const cause = error.cause;
  const body = error.responseBody ?? "";
  const start = body.trim() === "" ? "an empty body" : quoted(body);
  let words: string | undefined;
  if (JSONParseError.isInstance(cause)) {
    words = `the model server's reply is not JSON (${answer}): ${start}`;
  } else if (TypeValidationError.isInstance(cause)) {
    const issue = firstIssue(cause.cause);
    words = `the model server's reply is JSON its wire does not have (${answer}${issue === undefined ? "" : `; ${issue}`}): ${start}`;
  }
  return words === undefined
    ? undefined
    : { errorType: "malformed_response", message: boundedMessage(words), retryable: false };
}

function quoted(text: string): string {
  return text.length > QUOTED_EVENT_LENGTH ? `${text.slice(0, QUOTED_EVENT_LENGTH)}…` : text;
}

/** A zod issue as far as this reads it: `invalid_union` holds each alternative's issues. */
interface SchemaIssue {
  code?: unknown;
  path?: unknown;
  message?: unknown;
  errors?: unknown;
}

/** The first issue of a zod error, through the first alternative of unions: "path: message". */
function firstIssue(cause: unknown): string | undefined {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  let issue = Array.isArray(issues) ? (issues[0] as SchemaIssue | undefined) : undefined;
  const path: unknown[] = [];
  for (let depth = 0; issue !== undefined && depth < 10; depth += 1) {
    path.push(...(Array.isArray(issue.path) ? issue.path : []));
    const alternatives = issue.code === "invalid_union" ? issue.errors : undefined;
    const inner =
      Array.isArray(alternatives) && Array.isArray(alternatives[0])
        ? alternatives[0][0]
        : undefined;
    if (inner === undefined) {
      break;
    }
    issue = inner as SchemaIssue;
  }
  if (issue === undefined || typeof issue.message !== "string") {
    return undefined;
  }
  return `${path.length === 0 ? "the event" : path.join(".")}: ${issue.message}`;
}

export function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 5) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause =
      error.cause instanceof Error && !error.message.includes(error.cause.message)
        ? `: ${error.cause.message}`
        : "";
    return `${error.message}${cause}`;
  }
  if (typeof error === "object" && error !== null) {
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error);
}

/** Redacts credentials and cuts to {@link MAX_MESSAGE_LENGTH} characters. */
export function boundedMessage(text: string): string {
  const redacted = redactSecrets(text.replace(/\s+/g, " ").trim());
  return redacted.length > MAX_MESSAGE_LENGTH
    ? `${redacted.slice(0, MAX_MESSAGE_LENGTH)}… (${redacted.length - MAX_MESSAGE_LENGTH} more characters)`
    : redacted;
}

/**
 * The words for an `error` event inside an event stream the server answered with (HTTP 200), the
 * same on every wire: `the server reported an error in its event stream (overloaded_error): …`,
 * the event's error type or code in brackets when it names one.
 */
export function streamErrorWords(kind: string | undefined, message: string): string {
  return `the server reported an error in its event stream${kind === undefined ? "" : ` (${kind})`}: ${message}`;
}

/**
 * An error chunk of an OpenAI Chat or OpenAI-compatible stream (`{"error": {message, type?,
 * code?}}`, or Anthropic's event shape a compatible server may send), which the AI SDK's chat
 * providers pass on as that plain object, not an Error: in {@link streamErrorWords}, the error's own
 * code or type (error-kind.ts; never the Responses event's type). Undefined for anything else.
 */
export function plainStreamError(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || error instanceof Error) {
    return undefined;
  }
  const { message } = error as Record<string, unknown>;
  return typeof message === "string"
    ? streamErrorWords(errorKindsOf(error)[0], message)
    : undefined;
}

/** Certificate checks a server's chain failed that trusting its authority would pass. */
const UNTRUSTED_AUTHORITY_CODES = [
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
];

/** Other certificate checks: trusting an authority does not pass them. */
const BAD_CERTIFICATE_CODES = [
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
];

/** A server that answered a TLS hello with something else (OpenSSL's and Node's codes). */
const NOT_TLS = /wrong version number|packet length too long|http request/i;

/** The first of Node's codes in the chain that says why no connection was made. */
const CONNECTION_CODES = [
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
];

/**
 * A request no connection could be made for, from Node's codes in its cause chain
 * (http-fetch.ts fails as undici does: `TypeError("fetch failed")` caused by the socket's error;
 * the AI SDK wraps it as "Cannot connect to API: …"), said as what it is with the server's origin
 * and what to check. Sent again (case 18) as a later attempt may meet something else:
 * - `ENOTFOUND` (DNS answered that the name does not exist; some systems say it when offline):
 *   a network failure, sent again once;
 * - `EAI_AGAIN` (DNS did not answer), `EHOSTUNREACH`, `ENETUNREACH`, `ETIMEDOUT`, `ECONNREFUSED`
 *   from another machine (a server restarting): network failures, sent again as any;
 * - `ECONNREFUSED` from this machine: nothing is listening (a server not started), sent again once;
 * - a certificate TLS refuses (self-signed, unknown authority, expired, another host's) or no TLS
 *   at an `https:` URL: a configuration failure, not sent again (the same server answers alike).
 * A connection accepted, then closed or reset, is {@link closedBeforeAnswerFailure}'s. Undefined
 * when the chain names none of these.
 */
export function connectionFailure(error: unknown): ClassifiedFailure | undefined {
  const chain = causeChain(error);
  // Node's codes are strings; a DOMException's (an abort's) is a number: left out.
  const codes = chain.map((item) => errorCode(item) ?? "");
  const url = chain
    .map((item) => (item as { url?: unknown }).url)
    .find((value) => typeof value === "string");
  const deepest = chain.at(-1)?.message ?? "";
  const tls = tlsFailure(codes, deepest, originOf(url));
  if (tls !== undefined) {
    return tls;
  }
  const code = CONNECTION_CODES.find((known) => codes.includes(known));
  return code === undefined ? undefined : unconnected(code, url, deepest);
}

function tlsFailure(
  codes: readonly string[],
  deepest: string,
  origin: string,
): ClassifiedFailure | undefined {
  const configuration = (message: string): ClassifiedFailure => ({
    errorType: "configuration",
    message: boundedMessage(message),
    retryable: false,
  });
  const untrusted = UNTRUSTED_AUTHORITY_CODES.find((code) => codes.includes(code));
  if (untrusted !== undefined) {
    return configuration(
      `the TLS certificate of ${origin} is not trusted: ${deepest} (${untrusted}); if the server is yours, give its certificate authority's file in NODE_EXTRA_CA_CERTS`,
    );
  }
  const bad = BAD_CERTIFICATE_CODES.find((code) => codes.includes(code));
  if (bad !== undefined) {
    return configuration(
      `the TLS certificate of ${origin} was refused: ${deepest} (${bad}); check the base URL's host, or the server's certificate`,
    );
  }
  const protocol = codes.find((code) => code === "EPROTO" || code.startsWith("ERR_SSL_"));
  const notTls = NOT_TLS.exec(deepest)?.[0];
  if (protocol !== undefined && notTls !== undefined) {
    return configuration(
      `${origin} did not answer in TLS (${protocol}: ${notTls}); is it an http:// server? check the base URL's scheme`,
    );
  }
  return undefined;
}

/** The failure of a connection not made for `code`, to `url`; `deepest`: the socket's words. */
function unconnected(code: string, url: string | undefined, deepest: string): ClassifiedFailure {
  const origin = originOf(url);
  const host = hostOf(url) ?? origin;
  const network = (message: string, maxRetries?: number): ClassifiedFailure => ({
    errorType: "network",
    message: boundedMessage(message),
    retryable: true,
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
  switch (code) {
    case "ENOTFOUND":
      return network(
        `the host ${host} was not found: DNS knows no such name (ENOTFOUND); check the model's base URL (${origin}), or the network`,
        1,
      );
    case "EAI_AGAIN":
      return network(
        `the host ${host} could not be looked up: DNS did not answer (EAI_AGAIN); check the network`,
      );
    case "ECONNREFUSED":
      return isLocalHost(host)
        ? network(`nothing is listening at ${origin} — is the server running?`, 1)
        : network(
            `${origin} refused the connection (ECONNREFUSED): the server is down, or the base URL's port is wrong`,
          );
    case "EHOSTUNREACH":
      return network(
        `the host ${host} cannot be reached (EHOSTUNREACH): check the network, a VPN or a firewall`,
      );
    case "ENETUNREACH":
      return network(`no network route to ${origin} (ENETUNREACH): check the network connection`);
    default:
      return network(`${origin} did not answer: ${deepest || "timed out"} (${code})`);
  }
}

/** The host name of a request URL (IPv6 in brackets), or undefined. */
function hostOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** scheme://host:port of a request URL; "the base URL" when there is none. */
function originOf(url: string | undefined): string {
  try {
    return url === undefined ? "the base URL" : new URL(url).origin;
  } catch {
    return url ?? "the base URL";
  }
}

/** Whether `host` names this machine (loopback, `localhost`, a container's host alias). */
function isLocalHost(host: string): boolean {
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    host === "::1" ||
    /^127\./.test(host) ||
    host === "0.0.0.0" ||
    host === "host.docker.internal"
  );
}
