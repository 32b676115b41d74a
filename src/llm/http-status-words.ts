/**
 * How an HTTP error answer to a model request is said (errors.ts `apiCallFailure`, every face and
 * the log's `session.error`): `HTTP <status>: <the server's words>`, where the server's words are
 * its error message as the AI SDK's provider read it and, when that is only the status text (a
 * body in no error shape the provider knows: Ollama's and Go servers' `404 page not found`, a
 * proxy's text), the body's own first characters. A 404 also names the URL asked and the model,
 * and, unless the wire's API answered it ({@link answeredByApi}), the base URL rule of the wire
 * (README, "Choosing a model").
 */

import type { APICallError } from "@ai-sdk/provider";

/**
 * The model a 404 answered by the wire's own API ({@link answeredByApi}) was asked for: the base
 * URL is right, so the server has no such model (Anthropic's `not_found_error` "model: …",
 * OpenAI's `model_not_found`). Undefined for any other failure, or a request naming no model.
 */
export function unknownModelOf(error: APICallError, statusCode: number): string | undefined {
  if (statusCode !== 404) {
    return undefined;
  }
  const model = modelOf(error.requestBodyValues);
  return model !== undefined && answeredByApi(error, shownUrl(error.url).path) ? model : undefined;
}

/** Characters of a plain error body quoted (whitespace collapsed). */
const QUOTED_BODY_LENGTH = 200;

/** `HTTP <statusCode>: <words>` for `error`, with a 404's URL, model and likely cause. */
export function httpStatusWords(error: APICallError, statusCode: number): string {
  const words = serverWords(error);
  if (statusCode !== 404) {
    return `HTTP ${statusCode}: ${words}`;
  }
  const model = modelOf(error.requestBodyValues);
  const modelWords = model === undefined ? "" : ` (model "${model}")`;
  const { shown, path } = shownUrl(error.url);
  const cause = answeredByApi(error, path)
    ? ""
    : `; the base URL's path may be wrong (${baseUrlHint(path)}${ollamaRule(path)})${model === undefined ? "" : `, or the server has no model "${model}"`}`;
  return `HTTP 404 from ${shown}${modelWords}: ${words}${cause}`;
}

/**
 * Ollama's base URL rule when `path` may be its wire's (`<OLLAMA_HOST>/v1/chat/completions`:
 * api-keys.ts `wireBaseUrl`), else nothing.
 */
function ollamaRule(path: string): string {
  return path.endsWith("/v1/chat/completions")
    ? "; Ollama's (OLLAMA_HOST) is the server's address, host:port, to which turnloop adds /v1"
    : "";
}

/**
 * Whether a 404 at `path` came from the wire's API itself, so its base URL is right: the path has
 * its version once (`/v1/`, not `/v1/v1/`) and the provider read the body's own JSON error (or
 * the error has no body: not an answer from a server). A plain or HTML page, another vendor's
 * error shape or an empty body is a server without this path (trial 40 F10; round 3, session 43,
 * N5: Anthropic's wire with a doubled /v1, `OLLAMA_HOST=http://host:11434/api`).
 */
function answeredByApi(error: APICallError, path: string): boolean {
  if (!/\/v\d/.test(path) || /\/(v\d+)\/\1\//.test(path)) {
    return false;
  }
  if (error.responseBody === undefined) {
    return true;
  }
  const words = jsonMessageOf(error.responseBody.replace(/\s+/g, " ").trim());
  return words !== undefined && error.message.replace(/\s+/g, " ").includes(words);
}

/**
 * The server's words: the provider's message, and a plain (not HTML) body's own words (its JSON
 * error's message, else its first characters) when the message is not they (the AI SDK then gives
 * the status text alone: a body in another vendor's shape, `Not Found` for
 * `{"error": {"message": "Not Found: /messages"}}` on Anthropic's wire).
 */
function serverWords(error: APICallError): string {
  const body = (error.responseBody ?? "").replace(/\s+/g, " ").trim();
  const message = error.message || body;
  const contentType = error.responseHeaders?.["content-type"] ?? "";
  const words = jsonMessageOf(body) ?? body;
  if (body === "" || message.replace(/\s+/g, " ").includes(words) || /html/i.test(contentType)) {
    return message;
  }
  const quoted =
    words.length > QUOTED_BODY_LENGTH ? `${words.slice(0, QUOTED_BODY_LENGTH)}…` : words;
  return `${message} (${quoted})`;
}

/**
 * The message of a JSON error body in a shape the provider does not read (another vendor's:
 * `{"error": {"message"}}`, `{"error": "…"}`, `{"message"}`, `{"detail"}`), if it has one.
 */
function jsonMessageOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const { error, message, detail } = (parsed ?? {}) as Record<string, unknown>;
  const inner = (error ?? {}) as Record<string, unknown>;
  const found = [inner.message, error, message, detail].find((value) => typeof value === "string");
  return typeof found === "string" ? found : undefined;
}

/** The `model` of a request body (OpenAI's and Anthropic's wires), if it names one. */
function modelOf(requestBodyValues: unknown): string | undefined {
  const model = (requestBodyValues as { model?: unknown } | null | undefined)?.model;
  return typeof model === "string" ? model : undefined;
}

/** The URL asked without its query (which may carry a key), and its path. */
function shownUrl(url: string): { shown: string; path: string } {
  try {
    const parsed = new URL(url);
    return { shown: `${parsed.origin}${parsed.pathname}`, path: parsed.pathname };
  } catch {
    return { shown: url, path: url };
  }
}

/**
 * What a base URL of the wire `requestPath` ends with: the AI SDK adds `/messages` (Anthropic
 * Messages), `/responses` (OpenAI Responses) or `/chat/completions` (Chat Completions) to it;
 * on Anthropic's wire `/v1` is added first when the base URL lacks it (api-keys.ts `wireBaseUrl`).
 */
export function baseUrlHint(requestPath: string): string {
  if (requestPath.endsWith("/messages")) {
    return "an Anthropic Messages API one is the host alone or ends in /v1: turnloop adds /v1 when it is missing, then /messages";
  }
  if (requestPath.endsWith("/responses")) {
    return "an OpenAI Responses API one usually ends in /v1; turnloop adds /responses";
  }
  return "an OpenAI-compatible one usually ends in /v1";
}
