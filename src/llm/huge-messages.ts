import { randomUUID } from "../events/random-id.js";
import { bytePieces, decodedText, type EncodedText, joinedBytes } from "./encoded-json.js";
import { httpFetch } from "./http-fetch.js";
import { type HeaderInit, HeaderList } from "./http-headers.js";
import { type BodyPieces, sendsBodyPieces } from "./request-body.js";
import { stringPieces } from "./string-pieces.js";

/**
 * Memory for huge messages (issue 27 item 3: a 50 MB ACP prompt must peak at ≤ 4 × its size over
 * the idle baseline). A huge prompt is copied at each stage it passes (the JSON line, the parsed
 * text, the event's log line, each model request's JSON body and its bytes); each copy is garbage
 * once the next stage has its own, but V8 does not collect it before the next one is made, so
 * the copies pile up (measured: ×10.6 the prompt with nothing else changed). For messages of at
 * least {@link HUGE_MESSAGE_BYTES} only, a full garbage collection is run between stages; ordinary
 * messages never reach it, so ordinary sessions pay nothing.
 */

/** Messages of at least this many bytes (1 MiB) are huge. */
export const HUGE_MESSAGE_BYTES = 1024 * 1024;

let collector: (() => void) | undefined;
let scheduled = false;

/**
 * Runs a full garbage collection now. V8's `gc` is not exposed by default: the first call turns on
 * `--expose-gc` (`v8.setFlagsFromString`) and takes `gc` from a new context (`node:vm`), once.
 */
export function collectGarbage(): void {
  scheduled = false;
  if (collector === undefined) {
    process.getBuiltinModule("node:v8").setFlagsFromString("--expose-gc");
    collector = process.getBuiltinModule("node:vm").runInNewContext("gc") as () => void;
  }
  collector();
}

/**
 * After a message of `bytes` bytes has been handed on: when it is huge, schedules one full garbage
 * collection for when the current work yields (`setImmediate`; several calls before then share
 * it), so its copies are reclaimed before the next stage copies it again. Smaller: nothing.
 */
export function reclaimAfter(bytes: number): void {
  if (bytes < HUGE_MESSAGE_BYTES || scheduled) {
    return;
  }
  scheduled = true;
  setImmediate(collectScheduledGarbage);
}

/**
 * Runs the collection {@link reclaimAfter} scheduled, now, when one is due: called where a stage
 * is about to copy a message again (the event log's line, a model request), which may come
 * before the scheduled one runs. Otherwise nothing.
 */
export function collectScheduledGarbage(): void {
  if (scheduled) {
    collectGarbage();
  }
}

/**
 * For a `text` of at least {@link HUGE_MESSAGE_BYTES} characters made by `JSON.stringify`, which
 * builds a long string out of parts: joins it into one piece now (`Number(text)` reads it whole)
 * and runs a full collection, so the parts and the earlier stages' copies are gone before it is
 * encoded (encoding would join it too, with all of them still there). Shorter: nothing.
 */
export function joinAndCollect(text: string): void {
  if (text.length < HUGE_MESSAGE_BYTES) {
    return;
  }
  Number(text);
  collectGarbage();
}

/**
 * Wraps a `fetch` (default: {@link httpFetch}, turnloop's `fetch` over `node:http`) for model
 * requests. A request whose body is a string of at least {@link HUGE_MESSAGE_BYTES} characters, or
 * holds placeholders of {@link shareHugeTexts}, is sent with `redirect: "error"` (unless the caller
 * chose a redirect mode), after a full garbage collection, its bytes encoded a piece at a time as
 * they are sent (each placeholder becomes its text, JSON-escaped piece by piece), and the next
 * stage's collection is made due (see {@link collectScheduledGarbage}). Why: the whole body's bytes
 * are never held at once beside the history's text, and the previous stages' copies (the earlier
 * request's body, the log line) are garbage by now. A body sent as it is encoded cannot be sent
 * again, so a model endpoint that redirects such a request fails with fetch's error ("unexpected
 * redirect") instead of being followed. (Node's own `fetch`, which turnloop used before, also kept
 * a second copy of a redirectable body: the Fetch standard's HTTP-network-or-cache fetch, step 8,
 * tees it.) With another redirect mode the body is sent as one string (placeholders replaced).
 * A body holding {@link jsonPlaceholder}s and no shared huge text, under {@link HUGE_MESSAGE_BYTES},
 * is sent with each filled in, the bytes of the SDK's own body: as pieces (request-body.ts,
 * `BodyPieces`: no new block of the body's size) to a fetch that `sendsBodyPieces`, else joined.
 * Throws if a placeholder's text was released.
 */
export function withHugeBodies(fetchFunction: typeof fetch = httpFetch): typeof fetch {
  const takesPieces = sendsBodyPieces(fetchFunction);
  const wrapped: typeof fetch = async (input, init) => {
    const body = init?.body;
    const json = jsonTexts.get(init?.signal ?? NO_SIGNAL);
    const segments = typeof body === "string" ? bodySegments(body, json) : undefined;
    if (json?.size === 0) {
      jsonTexts.delete(init?.signal ?? NO_SIGNAL);
    }
    if (segments === undefined) {
      return fetchFunction(input, init);
    }
    const filled = ordinaryBody(segments, takesPieces);
    if (filled !== undefined) {
      // A fetch that sends pieces takes them where `fetch` takes a body (request-body.ts).
      return fetchFunction(input, { ...init, body: filled as Uint8Array });
    }
    joinAndCollect(body as string);
    const redirect = init?.redirect ?? "error";
    // Encoded a piece at a time as fetch reads it, with the length declared as a string body's.
    const streamed =
      redirect === "error"
        ? {
            body: encodedPieces(segments),
            duplex: "half" as const,
            headers: withLength(init?.headers, segments),
          }
        : { body: [...bodyPieces(segments)].join("") };
    const response = fetchFunction(input, { ...init, redirect, ...streamed });
    // The body and fetch's bytes of it live until the reply has been read; they are collected
    // before the next stage that copies the prompt (the next request, the next log line).
    scheduled = true;
    return response;
  };
  fillingFetches.add(wrapped);
  return wrapped;
}

/** The fetches made by {@link withHugeBodies}: they fill in {@link jsonPlaceholder}s too. */
const fillingFetches = new WeakSet<object>();

/** Whether `fetch` was made by {@link withHugeBodies}, so a body may hold {@link jsonPlaceholder}s. */
export function fillsJsonPlaceholders(fetch: unknown): boolean {
  return typeof fetch === "function" && fillingFetches.has(fetch);
}

/**
 * Whether `json` (a JSON text) holds a placeholder of {@link shareHugeTexts}: one that stands for
 * its text only until its request is over. Such a text must not be kept, nor sent through
 * {@link jsonPlaceholder} (whose text the fetch sends as it is, placeholders unfilled).
 */
export function holdsSharedTexts(json: string): boolean {
  return sharedTexts.size > 0 && json.includes(PLACEHOLDER_PREFIX);
}

/**
 * JSON texts by their placeholders as they appear in a body (quoted), per request, from
 * {@link jsonPlaceholder} until the request's fetch sends them: keyed by the request's abort
 * signal, the one object the AI SDK hands both to the model's `getArgs` (the call options'
 * `abortSignal`) and to its fetch (`init.signal`, `@ai-sdk/provider-utils` `postToApi`). So any
 * number of requests may wait between the two, and the texts of a request that failed before its
 * fetch go with its signal. Requests without a signal (turnloop's all have one, model-attempt.ts)
 * share {@link NO_SIGNAL}'s, each taking its own at its fetch.
 */
const jsonTexts = new WeakMap<object, Map<string, EncodedText>>();
const NO_SIGNAL = {};

/**
 * A placeholder (plain ASCII) for `json`, a JSON text's bytes, to stand as a string in the JSON
 * value of the request whose abort signal is `request`: a fetch made by {@link withHugeBodies}
 * given that signal sends `json` in place of the placeholder's quoted string, once (issue 26: an
 * OpenAI-compatible model's earlier wire messages, serialised and encoded once,
 * sync-chunk-validation.ts, and its tool definitions, kept-tools.ts). Only for a model whose
 * fetch {@link fillsJsonPlaceholders}.
 */
export function jsonPlaceholder(json: EncodedText, request: AbortSignal | undefined): string {
  const placeholder = `${PLACEHOLDER_PREFIX}${nextPlaceholder++}j~`;
  const key = request ?? NO_SIGNAL;
  const waiting = jsonTexts.get(key) ?? new Map<string, EncodedText>();
  jsonTexts.set(key, waiting);
  waiting.set(`"${placeholder}"`, json);
  return placeholder;
}

/**
 * The body of `segments` as pieces of bytes (`inPieces`) or one piece when it is an ordinary one:
 * no shared huge text in it and shorter than {@link HUGE_MESSAGE_BYTES} (so sent as the SDK's body
 * would have been, the same bytes); else undefined. Kept JSON texts go in as the bytes they were
 * encoded to once.
 */
function ordinaryBody(
  segments: readonly BodySegment[],
  inPieces: boolean,
): Uint8Array | BodyPieces | undefined {
  const parts: Array<string | EncodedText> = [];
  let length = 0;
  for (const segment of segments) {
    if ("text" in segment) {
      return undefined;
    }
    const part = "literal" in segment ? segment.literal : segment.encoded;
    length += part.length;
    parts.push(part);
  }
  if (length >= HUGE_MESSAGE_BYTES) {
    return undefined;
  }
  return inPieces ? bytePieces(parts) : joinedBytes(parts);
}

/**
 * A request body cut at its placeholders: literal JSON, a kept JSON text's bytes, or a shared
 * text to escape.
 */
type BodySegment = { literal: string } | { encoded: EncodedText } | { text: string };

/**
 * `body` cut at the placeholders of {@link shareHugeTexts}, or as one literal segment when it is
 * huge itself; undefined for an ordinary body (sent as it is).
 */
function bodySegments(body: string, json?: Map<string, EncodedText>): BodySegment[] | undefined {
  // No placeholder made yet: none can be in the body (the prefix holds a random UUID).
  if (nextPlaceholder === 0 || !body.includes(PLACEHOLDER_PREFIX)) {
    return body.length < HUGE_MESSAGE_BYTES ? undefined : [{ literal: body }];
  }
  const segments: BodySegment[] = [];
  let start = 0;
  for (const match of body.matchAll(PLACEHOLDER_PATTERN)) {
    segments.push({ literal: body.slice(start, match.index) }, filledIn(match[0], json));
    start = match.index + match[0].length;
  }
  segments.push({ literal: body.slice(start) });
  return segments;
}

/** What a body's placeholder stands for: its request's JSON text (`json`, sent once) or a shared text. */
function filledIn(placeholder: string, json: Map<string, EncodedText> | undefined): BodySegment {
  const encoded = json?.get(placeholder);
  if (encoded !== undefined) {
    json?.delete(placeholder);
    return { encoded };
  }
  const shared = sharedTexts.get(placeholder);
  if (shared === undefined) {
    throw new Error(`a model request refers to a released huge text (${placeholder})`);
  }
  return { text: shared };
}

/**
 * The body's text a piece at a time: literal parts as they are, shared texts JSON-escaped (the
 * escapes of `JSON.stringify`, which are the same for a piece as inside the whole string, since
 * pieces never split a surrogate pair).
 */
function* bodyPieces(segments: BodySegment[]): Generator<string> {
  for (const segment of segments) {
    if ("literal" in segment) {
      yield* stringPieces(segment.literal);
    } else if ("encoded" in segment) {
      yield* stringPieces(decodedText(segment.encoded));
    } else {
      for (const piece of stringPieces(segment.text)) {
        yield JSON.stringify(piece).slice(1, -1);
      }
    }
  }
}

/** Texts of at least this many UTF-16 code units (1 Mi) are shared with request bodies. */
const SHARED_TEXT_LENGTH = HUGE_MESSAGE_BYTES;
const PLACEHOLDER_PREFIX = `turnloop-huge-text-${randomUUID()}-`;
/** A shared text's placeholder, or a JSON text's with the quotes of its string. */
const PLACEHOLDER_PATTERN = new RegExp(
  `"${PLACEHOLDER_PREFIX}\\d+j~"|${PLACEHOLDER_PREFIX}\\d+~`,
  "g",
);
const sharedTexts = new Map<string, string>();
let nextPlaceholder = 0;

/**
 * `value` (a model request's prompt, in the AI SDK's shape: arrays and plain objects) with every
 * string of at least {@link SHARED_TEXT_LENGTH} code units replaced by a short placeholder (plain
 * ASCII, so the SDK's `JSON.stringify` keeps it as it is); copies only the arrays and objects on
 * the way to a replaced string. A fetch wrapped by {@link withHugeBodies} sends each placeholder's
 * text in its place, escaped a piece at a time, so the SDK's body never holds a second whole copy
 * of a huge prompt beside the history's (issue 27 item 3). Call `release` once the request is
 * over (its body has been sent); a provider whose fetch is not so wrapped must not use this.
 * Items of an array `value` (a prompt's messages) found to hold no huge text are not walked
 * again by later calls, so they must not be changed once passed here (convert.ts's kept
 * conversions are not).
 */
export function shareHugeTexts<T>(value: T): { value: T; release: () => void } {
  const placeholders: string[] = [];
  const replaced = (
    Array.isArray(value)
      ? itemsWithPlaceholders(value, placeholders)
      : withPlaceholders(value, placeholders)
  ) as T;
  return {
    value: replaced,
    release: () => {
      for (const placeholder of placeholders) {
        sharedTexts.delete(placeholder);
      }
    },
  };
}

/**
 * Items of prompts (messages) already walked that hold no huge text. A prompt's messages are kept
 * from one request to the next (convert.ts converts each history message once, keeps the prompt
 * and never changes them), so each request walks only its new messages instead of the whole
 * prompt (issue 26, figure 3).
 */
const withoutHugeTexts = new WeakSet<object>();

/** {@link withPlaceholders} of each item, skipping items known to hold no huge text. */
function itemsWithPlaceholders(items: readonly unknown[], placeholders: string[]): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    const isObject = typeof item === "object" && item !== null;
    if (isObject && withoutHugeTexts.has(item)) {
      continue;
    }
    const replaced = withPlaceholders(item, placeholders);
    if (replaced === item) {
      if (isObject) {
        withoutHugeTexts.add(item);
      }
    } else {
      copy ??= [...items];
      copy[index] = replaced;
    }
  }
  return copy ?? (items as unknown[]);
}

function withPlaceholders(value: unknown, placeholders: string[]): unknown {
  if (typeof value === "string") {
    if (value.length < SHARED_TEXT_LENGTH) {
      return value;
    }
    const placeholder = `${PLACEHOLDER_PREFIX}${nextPlaceholder++}~`;
    sharedTexts.set(placeholder, value);
    placeholders.push(placeholder);
    return placeholder;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const replaced = withPlaceholders(item, placeholders);
      if (replaced !== item) {
        copy ??= [...value];
        copy[index] = replaced;
      }
    }
    return copy ?? value;
  }
  if (
    typeof value !== "object" ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    return value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    const item = record[key];
    const replaced = withPlaceholders(item, placeholders);
    if (replaced !== item) {
      copy ??= { ...record };
      copy[key] = replaced;
    }
  }
  return copy ?? value;
}

/** The body of `segments` as a stream of its UTF-8 bytes, encoded a piece at a time as it is read. */
function encodedPieces(segments: BodySegment[]): ReadableStream<Uint8Array> {
  const pieces = bodyPieces(segments);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done === true) {
        controller.close();
      } else {
        controller.enqueue(encoder.encode(next.value));
      }
    },
  });
}

/** `headers` with `Content-Length` set to the UTF-8 length of the body of `segments`. */
function withLength(headers: RequestInit["headers"], segments: BodySegment[]): [string, string][] {
  let length = 0;
  for (const piece of bodyPieces(segments)) {
    length += Buffer.byteLength(piece);
  }
  const result = new HeaderList(headers as HeaderInit | undefined);
  result.set("content-length", String(length));
  return [...result];
}
