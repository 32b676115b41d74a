/**
 * The line of one event in `events.jsonl`, produced in pieces (issue 27 item 3: a 50 MB prompt's
 * `user.message` must not be held as a whole line, nor encoded whole, beside its text), and
 * decoded on its own ({@link decodeEventLine}). The pieces joined are exactly
 * {@link serializeEvent}'s line.
 */

import { isUtf8 } from "node:buffer";
import { isEphemeral, type SessionEvent, type SessionEventType } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { PIECE_LENGTH, stringPieces } from "../llm/string-pieces.js";
import { hasDeclaredData } from "./log-damage.js";

/**
 * The line written for `event`, `\n` included. Keys always come in the order `type, data, id,
 * timestamp, parentId` (Copilot's on-disk shape, without `ephemeral`), so every line starts with
 * `{"type":"<type>"` and tools such as `grep -c assistant.turn_start` and the session lister can
 * look at prefixes without parsing. JSON escapes `\n` and `"` inside strings, so such a prefix
 * after a newline can only be the start of an event.
 */
export function serializeEvent(event: SessionEvent): string {
  return `${JSON.stringify(onDisk(event))}\n`;
}

/**
 * {@link serializeEvent}'s line in pieces of about {@link PIECE_LENGTH} code units (an escaped
 * piece of a string can be longer: JSON escapes a control character in six). An event holding
 * no string of {@link PIECE_LENGTH} or more is one piece; otherwise the line is serialised with
 * a marker in place of each such string (a random one, which no event can hold by chance), and
 * each string is escaped a piece at a time where its marker was, never splitting a surrogate
 * pair, so escaping each piece gives the same text as escaping the whole.
 */
export function eventLinePieces(event: SessionEvent): Iterable<string> {
  if (!holdsLongString(event.data)) {
    // Nearly every line: one piece, with no generator run for it.
    const line = serializeEvent(event);
    return line.length <= PIECE_LENGTH ? [line] : stringPieces(line);
  }
  return longStringLinePieces(event);
}

/** {@link eventLinePieces} of an event holding a string of {@link PIECE_LENGTH} or more. */
function* longStringLinePieces(event: SessionEvent): Generator<string> {
  const marker = `turnloop-long-string-${randomUUID()}-`;
  const long: string[] = [];
  const skeleton = JSON.stringify(onDisk(event), (_key, value: unknown) => {
    if (typeof value !== "string" || value.length < PIECE_LENGTH) {
      return value;
    }
    long.push(value);
    return `${marker}${long.length - 1}`;
  });
  const markers = new RegExp(`"${marker}(\\d+)"`, "g");
  let start = 0;
  for (let found = markers.exec(skeleton); found !== null; found = markers.exec(skeleton)) {
    yield* stringPieces(skeleton.slice(start, found.index));
    yield '"';
    for (const piece of stringPieces(long[Number(found[1])] ?? "")) {
      yield JSON.stringify(piece).slice(1, -1);
    }
    yield '"';
    start = found.index + found[0].length;
  }
  yield* stringPieces(`${skeleton.slice(start)}\n`);
}

function onDisk(event: SessionEvent) {
  const { type, data, id, timestamp, parentId } = event;
  return { type, data, id, timestamp, parentId };
}

/**
 * Whether `value` holds, at any depth, a string of at least {@link PIECE_LENGTH} code units. It
 * runs for every line written (and every event recorded where the environment has a secret,
 * secrets.ts): it walks keys in place (`for…in` over JSON data, whose objects
 * have no inherited enumerable keys) rather than making an array of each object's values.
 */
export function holdsLongString(value: unknown): boolean {
  if (typeof value === "string") {
    return value.length >= PIECE_LENGTH;
  }
  if (typeof value !== "object" || value === null) {
    return false;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      if (holdsLongString(item)) {
        return true;
      }
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (holdsLongString(record[key])) {
      return true;
    }
  }
  return false;
}

/**
 * Every event type, checked against the union at compile time (`satisfies` rejects a missing or an
 * extra key), so the reader can refuse types it does not know.
 */
const KNOWN_EVENT_TYPES = {
  "session.start": true,
  "session.resume": true,
  "user.message": true,
  "assistant.turn_start": true,
  "assistant.message_delta": true,
  "assistant.reasoning_delta": true,
  "assistant.tool_call_start": true,
  "assistant.message": true,
  "assistant.usage": true,
  "assistant.retry": true,
  "assistant.turn_end": true,
  "tool.execution_start": true,
  "tool.execution_running": true,
  "tool.execution_partial_result": true,
  "tool.execution_complete": true,
  "permission.requested": true,
  "permission.completed": true,
  "session.plan_updated": true,
  "session.instructions_loaded": true,
  "session.task_complete": true,
  "session.autopilot_stopped": true,
  "session.error": true,
  abort: true,
  "session.compaction_start": true,
  "session.compaction_complete": true,
  "session.idle": true,
  "external_tool.requested": true,
  "external_tool.completed": true,
  "hook.start": true,
  "hook.end": true,
  "session.mcp_server_status_changed": true,
  "session.model_change": true,
  "session.mode_changed": true,
  "session.usage_info": true,
  "pending_messages.modified": true,
  "session.info": true,
  "tool.execution_progress": true,
  "session.warning": true,
  "session.snapshot_rewind": true,
  "session.title_changed": true,
  "session.grants_changed": true,
  "session.shutdown": true,
} satisfies Record<SessionEventType, true>;

export function isKnownEventType(type: string): type is SessionEventType {
  return Object.hasOwn(KNOWN_EVENT_TYPES, type);
}

/** How one line of the log decoded. */
export type EventLineResult =
  | { kind: "event"; event: SessionEvent }
  | { kind: "blank" }
  | { kind: "damaged"; reason: "invalid_json" | "invalid_event" };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Decodes one line (without its `\n`). Valid means: UTF-8, JSON, an object with string `type` (a
 * known, persisted type), `id` and `timestamp`, an object `data`, and `parentId` a string, `null`
 * or absent (read as `null`), and `data` an object whose fields have the types `type` declares
 * (log-damage.ts). Never throws.
 */
export function decodeEventLine(line: Uint8Array): EventLineResult {
  const buffer = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  if (!isUtf8(buffer)) {
    return { kind: "damaged", reason: "invalid_json" };
  }
  const text = buffer.toString("utf8");
  if (text.trim() === "") {
    return { kind: "blank" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "damaged", reason: "invalid_json" };
  }
  const event = toSessionEvent(value);
  return event === undefined
    ? { kind: "damaged", reason: "invalid_event" }
    : { kind: "event", event };
}

function toSessionEvent(value: unknown): SessionEvent | undefined {
  if (!isPlainObject(value)) {
    return undefined;
  }
  const { type, data, id, timestamp, parentId } = value;
  // Ephemeral types never belong on disk; one found there was not written by us.
  if (typeof type !== "string" || !isKnownEventType(type) || isEphemeral(type)) {
    return undefined;
  }
  if (typeof id !== "string" || typeof timestamp !== "string" || !isPlainObject(data)) {
    return undefined;
  }
  if (!hasDeclaredData(type, data)) {
    return undefined;
  }
  if (parentId !== undefined && parentId !== null && typeof parentId !== "string") {
    return undefined;
  }
  // The envelope and `data`'s fields are checked (the schemas allow fields added later).
  return { type, data, id, timestamp, parentId: parentId ?? null } as SessionEvent;
}
