import { httpFetch } from "./http-fetch.js";
import { type HeaderInit, HeaderList } from "./http-response.js";

/**
 * Memory for huge messages (issue 27 item 3: a 50 MB ACP prompt must peak at ≤ 4 × its size over
 * the idle baseline). A huge prompt is copied at each stage it passes (the JSON line, the parsed
 * text, the event's log line, each model request's JSON body and its bytes); each copy is garbage
 * once the next stage has its own, but V8 does not collect it before the next one is made, so
 * the copies pile up (measured: ×10.6 the prompt with nothing else changed). For messages of at
 * least {@link HUGE_MESSAGE_BYTES} only, a full garbage collection is run between stages; ordinary
 * messages never reach it, so ordinary sessions pay nothing.
 */

/** Messages of at least this many bytes (8 MiB) are huge. */
export const HUGE_MESSAGE_BYTES = 8 * 1024 * 1024;

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
 * requests. A request whose body is a string of at least {@link HUGE_MESSAGE_BYTES} characters is
 * sent with `redirect: "error"` (unless the caller chose a redirect mode), after a full garbage
 * collection, with its body encoded a piece at a time as it is sent, and the next stage's
 * collection is made due (see {@link collectScheduledGarbage}). Why: the whole body's bytes are
 * never held at once beside the string, and the previous stages' copies (the earlier request's
 * body, the log line) are garbage by now. A body sent as it is encoded cannot be sent again, so a
 * model endpoint that redirects such a request fails with fetch's error ("unexpected redirect")
 * instead of being followed. (Node's own `fetch`, which turnloop used before, also kept a second
 * copy of a redirectable body: the Fetch standard's HTTP-network-or-cache fetch, step 8, tees it.)
 */
export function withHugeBodies(fetchFunction: typeof fetch = httpFetch): typeof fetch {
  return (input, init) => {
    const body = init?.body;
    if (typeof body !== "string" || body.length < HUGE_MESSAGE_BYTES) {
      return fetchFunction(input, init);
    }
    joinAndCollect(body);
    const redirect = init?.redirect ?? "error";
    // Encoded a piece at a time as fetch reads it, with the length declared as a string body's.
    const streamed =
      redirect === "error"
        ? {
            body: encodedPieces(body),
            duplex: "half" as const,
            headers: withLength(init?.headers, body),
          }
        : {};
    const response = fetchFunction(input, { ...init, redirect, ...streamed });
    // The body and fetch's bytes of it live until the reply has been read; they are collected
    // before the next stage that copies the prompt (the next request, the next log line).
    scheduled = true;
    return response;
  };
}

/** UTF-16 code units of a huge string handled at a time (1 Mi). */
export const PIECE_LENGTH = 1_048_576;

/** `text` in pieces of at most {@link PIECE_LENGTH} code units, never splitting a surrogate pair. */
export function* stringPieces(text: string): Generator<string> {
  if (text.length <= PIECE_LENGTH) {
    yield text;
    return;
  }
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + PIECE_LENGTH, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) {
      end -= 1;
    }
    yield text.slice(start, end);
    start = end;
  }
}

/** `text` as a stream of its UTF-8 bytes, encoded a piece at a time as it is read. */
function encodedPieces(text: string): ReadableStream<Uint8Array> {
  const pieces = stringPieces(text);
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

/** `headers` with `Content-Length` set to the UTF-8 length of `body`. */
function withLength(headers: RequestInit["headers"], body: string): [string, string][] {
  const result = new HeaderList(headers as HeaderInit | undefined);
  result.set("content-length", String(Buffer.byteLength(body)));
  return [...result];
}
