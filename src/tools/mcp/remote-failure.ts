/**
 * What a failure of a remote (`http`, `sse`) MCP server says to a person. The MCP client's HTTP
 * transports use Node's `fetch`, whose network failures all read "fetch failed" (the reason is in
 * `cause`: `ECONNREFUSED`, `ENOTFOUND` …), and whose answer to a non-MCP page is an
 * `SdkHttpError` quoting the page's whole body. These name the URL and the reason instead:
 * "nothing is listening at http://127.0.0.1:8899/mcp", "did not answer as an MCP server (HTTP
 * 404 Not Found at …)", in the same words for both transports.
 */

import { errorCode, errorMessage } from "../../events/errors.js";
import { redactedText, redactedUrl } from "../../llm/shown-values.js";

/** System error codes that mean the server cannot be reached at all. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
]);

/** `error` and its `cause`s, outermost first (at most 5: a cycle ends it). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 5) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/**
 * The first system error code in `error`'s cause chain (`ECONNREFUSED` …), if any; for the
 * HTTP+SSE transport's `SseError`, the code in its message, since the `eventsource` package
 * flattens fetch's failure and its causes into one string (`SSE error: TypeError: fetch failed:
 * connect ECONNREFUSED 127.0.0.1:8899`) and keeps no `cause`.
 */
function networkCode(error: unknown): string | undefined {
  for (const item of causes(error)) {
    const code = errorCode(item);
    if (code !== undefined && UNREACHABLE_CODES.has(code)) {
      return code;
    }
  }
  const message = errorMessage(error);
  if (message.startsWith(SSE_ERROR)) {
    return message.match(/\b[A-Z][A-Z_]+\b/g)?.find((word) => UNREACHABLE_CODES.has(word));
  }
  return undefined;
}

/** How the MCP client's `SseError` messages begin. */
const SSE_ERROR = "SSE error: ";

/**
 * The system's own words for an unreachable server, without the layers above them: the last
 * cause's message, or an `SseError`'s message after its last `fetch failed: `.
 */
function deepestMessage(error: unknown): string {
  const message = errorMessage(causes(error).at(-1));
  const flattened = message.lastIndexOf("fetch failed: ");
  return message.startsWith(SSE_ERROR) && flattened >= 0
    ? message.slice(flattened + "fetch failed: ".length)
    : message;
}

/**
 * Whether `error` says the server at the other end cannot be reached (refused, reset, no route,
 * host not found): a connected remote server that answers a call with it has gone away.
 */
export function isUnreachable(error: unknown): boolean {
  return networkCode(error) !== undefined;
}

/**
 * The HTTP status of an `SdkHttpError` of the MCP client (`data.status`), or of its HTTP+SSE
 * transport's `SseError` ("SSE error: Non-200 status code (404)", the status in `code`), if
 * `error` is one.
 */
function httpStatus(error: unknown): { status: number; statusText: string } | undefined {
  const sseCode = (error as { code?: unknown } | null)?.code;
  if (errorMessage(error).startsWith(`${SSE_ERROR}Non-200`) && typeof sseCode === "number") {
    return { status: sseCode, statusText: "" };
  }
  const data = (error as { data?: { status?: unknown; statusText?: unknown } } | null)?.data;
  if (typeof data?.status !== "number") {
    return undefined;
  }
  return {
    status: data.status,
    statusText: typeof data.statusText === "string" ? data.statusText : "",
  };
}

/**
 * Why a remote server at `url` failed, in words: nothing listening, its host not found or not
 * looked up (DNS did not answer), cannot be reached (with the system's reason), did not answer
 * as an MCP server (its HTTP status), or the client's own message when it is none of these (a
 * timeout, a JSON-RPC error).
 */
export function remoteFailure(error: unknown, url: string): string {
  // A URL's password and token are never shown (llm/shown-values.ts), here nor in the event.
  // The URL redacted whole first: a password may hold a space, which ends a URL in a text.
  return redactedText(failureWords(error, redactedUrl(url)));
}

function failureWords(error: unknown, url: string): string {
  const code = networkCode(error);
  if (code === "ECONNREFUSED") {
    return `nothing is listening at ${url}`;
  }
  if (code === "ENOTFOUND") {
    return `the host ${new URL(url).host} was not found (DNS), for ${url}`;
  }
  if (code === "EAI_AGAIN") {
    // DNS did not answer: the name may well exist (llm/failure-words.ts `connectionFailure`).
    return `the host ${new URL(url).host} could not be looked up (DNS did not answer), for ${url}`;
  }
  if (code !== undefined) {
    return `could not reach ${url}: ${deepestMessage(error)}`;
  }
  const http = httpStatus(error);
  if (http !== undefined) {
    const status = `${http.status}${http.statusText === "" ? "" : ` ${http.statusText}`}`;
    return `did not answer as an MCP server (HTTP ${status} at ${url})`;
  }
  const deepest = deepestMessage(error);
  if (deepest === "bad port") {
    // The Fetch standard's blocked ports (1, 7, 9 … 6000, 6665-6669 …): no request goes out.
    return `fetch refuses port ${new URL(url).port} of ${url} (a port the Fetch standard blocks): use another port`;
  }
  // fetch's "fetch failed" says nothing: its cause does (trial 42 finding 6).
  return errorMessage(error) === "fetch failed" && deepest !== "fetch failed"
    ? `could not reach ${url}: ${deepest}`
    : errorMessage(error);
}
