/**
 * An error's own kind, read the same on every wire (case 18, one rule on every wire): the `code`
 * and `type` of the error object a server sent, wherever its wire puts it, and the HTTP status
 * they name (errors.ts types and retries the failure as that status). Shapes read:
 * - OpenAI Chat and compatible, and any HTTP or 200 error body: `{"error": {message, type, code}}`;
 * - Anthropic: `{"type": "error", "error": {type, message}}`, or the inner `{type, message}` alone
 *   (the AI SDK's Anthropic provider passes that on);
 * - the Responses API's `error` event `{"type": "error", code, message, param}` and its
 *   `response.failed` event `{"type": "response.failed", "response": {"error": {code, message}}}`,
 *   and the AI SDK's OpenAI provider's reading of either (`{message, type, code, statusCode}`,
 *   whose `type` is the event's and whose `statusCode` is the provider's own table, not read).
 * The event types `error` and `response.failed` name the event that carried the error, never the
 * error: they are not its kind (trial 42 F1: a spent quota was typed `server` by them).
 */

/** The error object inside `value`: its `response.error`, else its `error`, else itself. */
function innerError(value: Record<string, unknown>): Record<string, unknown> {
  const response = asRecord(value.response);
  return asRecord(response?.error) ?? asRecord(value.error) ?? value;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The `type` values that name the event carrying an error, not the error. */
const EVENT_TYPES = new Set(["error", "response.failed"]);

/**
 * The error's own code and type in `value` (an error object or body, parsed or as JSON text), most
 * specific first: the inner error's `code`, its `type`, then the outer object's. Event types are
 * left out. Empty when it names neither.
 */
export function errorKindsOf(value: unknown): string[] {
  const record = typeof value === "string" ? parsedRecord(value) : asRecord(value);
  if (record === undefined) {
    return [];
  }
  const inner = innerError(record);
  const kinds = [inner.code, inner.type, record.code, record.type]
    .filter((kind) => (typeof kind === "string" && kind !== "") || typeof kind === "number")
    .map(String)
    .filter((kind) => !EVENT_TYPES.has(kind));
  return [...new Set(kinds)];
}

function parsedRecord(text: string): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * The HTTP status the error in `value` stands for: its own numeric `code` when that is an HTTP
 * error status (OpenRouter's `{"error": {"code": 429}}`), else {@link statusOfKind} of its kinds.
 */
export function statusOfError(value: unknown): number {
  const kinds = errorKindsOf(value);
  const numeric = kinds
    .map(Number)
    .find((code) => Number.isInteger(code) && code >= 400 && code < 600);
  return numeric ?? statusOfKind(kinds.join(" ").toLowerCase());
}

/**
 * The one table of what an error's code or type means, as the HTTP status it stands for: a spent
 * quota or credit (OpenAI's `insufficient_quota`, `billing_hard_limit_reached`, Anthropic's
 * `billing_error`) 402; a rate limit 429; an overload 529; a bad key (OpenAI's `invalid_api_key`,
 * Anthropic's `authentication_error`) 401; `permission` 403; `not_found` 404; anything invalid or
 * a bad request 400; a timeout 504; any other named kind (`server_error`, `api_error`) 500. An
 * error that names no kind is a 400: nothing says it is transient (`{"error": "model not found"}`).
 * Mostly the AI SDK's OpenAI provider's reading of a stream error, with quota and key kinds of
 * their own so that they are never sent again.
 */
export function statusOfKind(kind: string): number {
  if (kind === "") {
    return 400;
  }
  const statuses: Array<[RegExp, number]> = [
    [/insufficient_quota|billing/, 402],
    [/rate_limit/, 429],
    [/overload/, 529],
    [/invalid_api_key|authentication|unauthori[sz]ed/, 401],
    [/permission/, 403],
    [/not_found/, 404],
    [/invalid|bad_request|context_length/, 400],
    [/timeout/, 504],
  ];
  return statuses.find(([pattern]) => pattern.test(kind))?.[1] ?? 500;
}
