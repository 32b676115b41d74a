/**
 * A notification's JSON text as the SDK server sends it: exactly `JSON.stringify({jsonrpc: "2.0",
 * method, params})`. One `session.event` goes out per streamed delta, and on this Node's V8
 * `JSON.stringify` spends most of its time quoting strings character by character (16 k of the
 * server's instructions per delta notification; issue 26, figure 4f, bench/notes/relay24.md), so
 * a delta's notification is written from its known shape instead: the keys as constants, each
 * string quoted as it is when it holds nothing JSON escapes. Anything else, or a delta of any
 * other shape, goes through `JSON.stringify`; the text is the same byte for byte either way.
 */

import type { NotificationMessage } from "vscode-jsonrpc/node.js";
import { ServerToClient } from "../protocol/copilot.js";

/**
 * Characters `JSON.stringify` writes as escapes (ECMA-262 `QuoteJSONString`): `"`, `\`, the
 * control characters below U+0020, and surrogates (a lone one is escaped; a string holding a pair
 * takes the general path too).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `value` as `JSON.stringify` writes it. */
function quoted(value: string): string {
  return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * Whether `value` is a plain object whose own enumerable keys are `keys`, in that order (the
 * order `JSON.stringify` writes them in).
 */
function hasKeys(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (
    typeof value !== "object" ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    return false;
  }
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, index) => key === keys[index]);
}

const PARAMS_KEYS = ["sessionId", "event"] as const;
const EVENT_KEYS = ["type", "data", "id", "timestamp", "parentId", "ephemeral"] as const;
const DELTA_KEYS = ["messageId", "deltaContent"] as const;

/**
 * The JSON text of the notification `{jsonrpc: "2.0", method, params}`, the same as
 * `JSON.stringify` makes (see the file's comment).
 * @throws what `JSON.stringify` throws for `params` (a cycle, a BigInt).
 */
export function notificationText(method: string, params: object): string {
  return (
    (method === ServerToClient.sessionEvent ? deltaEventText(params) : undefined) ??
    JSON.stringify({ jsonrpc: "2.0", method, params } satisfies NotificationMessage)
  );
}

/**
 * The text of a `session.event` notification carrying an `assistant.message_delta` or
 * `assistant.reasoning_delta` of the envelope's shape (session/envelope.ts `createEnvelope`);
 * undefined for any other params.
 */
function deltaEventText(params: object): string | undefined {
  if (!hasKeys(params, PARAMS_KEYS)) {
    return undefined;
  }
  const { sessionId, event } = params;
  if (typeof sessionId !== "string" || !hasKeys(event, EVENT_KEYS)) {
    return undefined;
  }
  const { type, data, id, timestamp, parentId, ephemeral } = event;
  if (
    (type !== "assistant.message_delta" && type !== "assistant.reasoning_delta") ||
    !hasKeys(data, DELTA_KEYS) ||
    typeof data.messageId !== "string" ||
    typeof data.deltaContent !== "string" ||
    typeof id !== "string" ||
    typeof timestamp !== "string" ||
    (typeof parentId !== "string" && parentId !== null) ||
    ephemeral !== true
  ) {
    return undefined;
  }
  const parent = parentId === null ? "null" : quoted(parentId);
  return `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":${quoted(sessionId)},"event":{"type":"${type}","data":{"messageId":${quoted(data.messageId)},"deltaContent":${quoted(data.deltaContent)}},"id":${quoted(id)},"timestamp":${quoted(timestamp)},"parentId":${parent},"ephemeral":true}}}`;
}
