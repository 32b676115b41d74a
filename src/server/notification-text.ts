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
import { contentLengthFrame } from "../protocol/framed-writer.js";

/**
 * Characters `JSON.stringify` writes as escapes (ECMA-262 `QuoteJSONString`): `"`, `\`, the
 * control characters below U+0020, and surrogates (a lone one is escaped; a string holding a pair
 * takes the general path too).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Characters that are one UTF-8 byte each and that `JSON.stringify` writes as they are: printable
 * ASCII and DEL but `"` and `\`. A delta whose strings hold only these is as many bytes as
 * characters, so its frame's `Content-Length` is its text's `length`: counting the bytes of the
 * text (joined from pieces) made V8 flatten it first, a copy per delta (bench/notes/relay25.md).
 */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7f]*$/;

/** `value` as `JSON.stringify` writes it. */
function quoted(value: string): string {
  return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** `value` as `JSON.stringify` writes it, for a value of {@link PLAIN} characters only. */
function plainQuoted(value: string): string {
  return `"${value}"`;
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
/** A reasoning delta on the wire also names its block (server/wire-events.ts `modelNamesOnWire`). */
const REASONING_DELTA_KEYS = ["messageId", "deltaContent", "reasoningId"] as const;

/**
 * The JSON text of the notification `{jsonrpc: "2.0", method, params}`, the same as
 * `JSON.stringify` makes (see the file's comment).
 * @throws what `JSON.stringify` throws for `params` (a cycle, a BigInt).
 */
export function notificationText(method: string, params: object): string {
  return (
    (method === ServerToClient.sessionEvent ? deltaEventText(params)?.text : undefined) ??
    JSON.stringify({ jsonrpc: "2.0", method, params } satisfies NotificationMessage)
  );
}

/**
 * {@link notificationText} framed for the wire (protocol/framed-writer.ts
 * `contentLengthFrame`); a delta of {@link PLAIN} strings is not counted byte by byte.
 * @throws what `JSON.stringify` throws for `params` (a cycle, a BigInt).
 */
export function notificationFrame(method: string, params: object): string {
  const delta = method === ServerToClient.sessionEvent ? deltaEventText(params) : undefined;
  if (delta === undefined) {
    return contentLengthFrame(notificationText(method, params));
  }
  return contentLengthFrame(delta.text, delta.plain ? delta.text.length : undefined);
}

/**
 * The text of a `session.event` notification carrying an `assistant.message_delta` or
 * `assistant.reasoning_delta` of the envelope's shape (session/envelope.ts `createEnvelope`; a
 * reasoning delta with Copilot's `reasoningId` after its text, its `messageId`: wire-events.ts
 * `modelNamesOnWire`), and whether its strings are all {@link PLAIN} (then its UTF-8 bytes are its `length`); undefined
 * for any other params.
 */
function deltaEventText(params: object): { text: string; plain: boolean } | undefined {
  if (!hasKeys(params, PARAMS_KEYS)) {
    return undefined;
  }
  const { sessionId, event } = params;
  if (typeof sessionId !== "string" || !hasKeys(event, EVENT_KEYS)) {
    return undefined;
  }
  const { type, data, id, timestamp, parentId, ephemeral } = event;
  const reasoning = type === "assistant.reasoning_delta";
  if (
    (type !== "assistant.message_delta" && !reasoning) ||
    !hasKeys(data, reasoning ? REASONING_DELTA_KEYS : DELTA_KEYS) ||
    (reasoning && data.reasoningId !== data.messageId) ||
    typeof data.messageId !== "string" ||
    typeof data.deltaContent !== "string" ||
    typeof id !== "string" ||
    typeof timestamp !== "string" ||
    (typeof parentId !== "string" && parentId !== null) ||
    ephemeral !== true
  ) {
    return undefined;
  }
  const plain =
    PLAIN.test(data.deltaContent) &&
    PLAIN.test(sessionId) &&
    PLAIN.test(data.messageId) &&
    PLAIN.test(id) &&
    PLAIN.test(timestamp) &&
    (parentId === null || PLAIN.test(parentId));
  const quote = plain ? plainQuoted : quoted;
  const parent = parentId === null ? "null" : quote(parentId);
  const messageId = quote(data.messageId);
  const block = reasoning ? `,"reasoningId":${messageId}` : "";
  const text = `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":${quote(sessionId)},"event":{"type":"${type}","data":{"messageId":${messageId},"deltaContent":${quote(data.deltaContent)}${block}},"id":${quote(id)},"timestamp":${quote(timestamp)},"parentId":${parent},"ephemeral":true}}}`;
  return { text, plain };
}
