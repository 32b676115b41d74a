/**
 * What a failed attempt's answer was, read from the first bytes of its body (model-attempt.ts
 * keeps them): an error object in place of a reply (trial 41, F12), or another wire's events than
 * the model's prefix speaks (F5). Both are said as what they are, in place of what the AI SDK
 * made of them ("the response ended before the reply was complete", retried as a network
 * failure; or its own advice, in its functions' names).
 */

import { errorKindsOf } from "./error-kind.js";
import { type ClassifiedFailure, plainStreamFailure } from "./errors.js";
import { boundedMessage } from "./failure-words.js";

/** The streaming wires turnloop's providers speak (README, "Choosing a model"). */
export type Wire = "chat" | "responses" | "anthropic";

/** What each wire is called, and the model prefix that speaks it. */
const WIRES: Record<Wire, { speaks: string; events: string; prefix: string }> = {
  chat: {
    speaks: "OpenAI Chat Completions",
    events: "OpenAI Chat Completions chunks",
    prefix: "openai-compatible",
  },
  responses: {
    speaks: "the OpenAI Responses API",
    events: "OpenAI Responses API events",
    prefix: "openai",
  },
  anthropic: {
    speaks: "the Anthropic Messages API",
    events: "Anthropic Messages API events",
    prefix: "anthropic",
  },
};

/** The wire of a provider type id (`openai:…`, `anthropic:…`; the others speak Chat Completions). */
export function wireOfProvider(typeId: string): Wire {
  const prefix = typeId.slice(0, typeId.indexOf(":"));
  return prefix === "openai" ? "responses" : prefix === "anthropic" ? "anthropic" : "chat";
}

/**
 * The wire whose events `head` (an answer's first bytes) begins with: a Responses API event's
 * `type` (`response.created` …), an Anthropic Messages event's (`message_start`, `ping` …), or a
 * Chat Completions chunk (`"object": "chat.completion.chunk"`, or `choices`). Undefined for
 * anything else (an error chunk, a comment).
 */
export function wireOfAnswer(head: string): Wire | undefined {
  if (/"type"\s*:\s*"response\.[a-z_.]+"/.test(head)) {
    return "responses";
  }
  if (/"type"\s*:\s*"(?:message_start|content_block_[a-z]+|message_delta|ping)"/.test(head)) {
    return "anthropic";
  }
  if (/"object"\s*:\s*"chat\.completion|"choices"\s*:\s*\[/.test(head)) {
    return "chat";
  }
  return undefined;
}

/**
 * `failure` said again from what the answer was, when its body's first bytes `head` tell: an
 * error body ({@link errorBodyFailure}), or events of a wire other than `typeId`'s (a malformed
 * response, not sent again: the server would answer alike), with the prefix that speaks it.
 * A failure with an HTTP status (an error status's own words) is left as it is.
 */
export function failureOfAnswer(
  failure: ClassifiedFailure,
  head: string | undefined,
  typeId: string,
): ClassifiedFailure {
  if (head === undefined || failure.statusCode !== undefined || failure.errorType === "stalled") {
    return failure;
  }
  const body = errorBodyOf(head);
  if (body !== undefined) {
    return errorBodyFailure(body);
  }
  const answered = wireOfAnswer(head);
  const own = wireOfProvider(typeId);
  if (answered === undefined || answered === own) {
    return failure;
  }
  const prefix = typeId.slice(0, typeId.indexOf(":"));
  const modelName = typeId.slice(typeId.indexOf(":") + 1);
  return {
    errorType: "malformed_response",
    message: boundedMessage(
      `the server answered with ${WIRES[answered].events}, but ${prefix}: speaks ${WIRES[own].speaks}; for this server use --model ${WIRES[answered].prefix}:${modelName}`,
    ),
    retryable: false,
  };
}

/**
 * `head` as an error body: one JSON object with a non-null `error` and none of a reply's fields
 * (Chat's `choices`, Responses' `output`, Messages' `content`). Undefined for anything else.
 */
function errorBodyOf(head: string): Record<string, unknown> | undefined {
  const text = head.trim();
  if (!text.startsWith("{")) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const body = value as Record<string, unknown>;
  const error = body.error;
  const isError = (typeof error === "object" && error !== null) || typeof error === "string";
  return isError && !("choices" in body || "output" in body || "content" in body)
    ? body
    : undefined;
}

/**
 * The failure of a successful answer (HTTP 2xx) whose body is an error object in place of a
 * reply (`{"error": {message, type, code}}`, Anthropic's `{"type": "error", "error": {…}}`), as
 * some gateways answer a quota, key or routing failure: said in the server's words, with its type
 * or code in brackets, and categorised and retried as the same error inside a stream would be
 * (errors.ts `plainStreamFailure`: a rate limit or an overload is retried, `insufficient_quota` is not).
 */
function errorBodyFailure(body: Record<string, unknown>): ClassifiedFailure {
  const inner = body.error;
  const fields =
    typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : {};
  const message =
    typeof fields.message === "string" ? fields.message : typeof inner === "string" ? inner : "";
  const kind = errorKindsOf(body)[0] ?? (typeof fields.status === "string" ? fields.status : "");
  const words = `the server answered HTTP 200 with an error body${kind === "" ? "" : ` (${kind})`}: ${message || JSON.stringify(inner)}`;
  return plainStreamFailure(body, words);
}
