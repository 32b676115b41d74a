import type { ClientRequest } from "node:http";
import { stringPieces } from "./string-pieces.js";

/**
 * A request's body as `httpFetch` (http-fetch.ts) takes and sends it. One kind is a body sent as
 * several pieces of bytes (issue 26, figure 5c): an ordinary model request's body is mostly the
 * kept JSON's bytes (encoded-json.ts), and joining it with the few texts around them into one new
 * block made one allocation of the body's size (100–360 KiB late in a long session) at every
 * request. Freeing such a block raises glibc's dynamic mmap threshold,
 * after which later large blocks come from its arenas and leave holes the process keeps
 * (bench/notes/mem42.md). Sent as pieces, the body's bytes are the views they already are. A
 * string body (the Anthropic and Responses wires' whole body, made by the AI SDK) is encoded in
 * pieces of at most {@link STRING_PIECE_LENGTH} code units, each under glibc's first mmap
 * threshold (128 KiB), so no block of the body's size is made.
 */

/** Code units of a string body encoded into one piece: at most 96 KiB of UTF-8 (3 bytes a unit). */
export const STRING_PIECE_LENGTH = 32_768;

/**
 * A body of byte pieces sent one after another, with their total length declared
 * (`Content-Length`): the same bytes on the wire as the pieces joined. The pieces are never
 * changed nor copied, so the body can be sent again (a 307/308 redirect), unlike a stream. Only a
 * fetch that {@link sendsBodyPieces} takes one (huge-messages.ts gives any other the bytes joined).
 */
export class BodyPieces {
  /** The pieces, in order; none is empty. */
  readonly pieces: readonly Uint8Array[];
  /** The sum of the pieces' lengths, in bytes. */
  readonly byteLength: number;

  constructor(pieces: readonly Uint8Array[]) {
    this.pieces = pieces.filter((piece) => piece.byteLength > 0);
    this.byteLength = this.pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  }
}

/** A body as `httpFetch` sends it: bytes or pieces (sent again on a redirect), a stream, or none. */
export type RequestBody = Uint8Array | BodyPieces | ReadableStream<Uint8Array> | undefined;

/**
 * `fetch`'s `body` as `httpFetch` sends it: a string encoded as UTF-8 (one piece of bytes, or
 * {@link BodyPieces} when longer than {@link STRING_PIECE_LENGTH}), bytes as they are.
 * @throws TypeError for any other kind of body (a `Blob`, `FormData` …).
 */
export function bodyOf(body: RequestInit["body"] | BodyPieces): RequestBody {
  if (body === undefined || body === null || body instanceof BodyPieces) {
    return body ?? undefined;
  }
  if (typeof body === "string") {
    return body.length <= STRING_PIECE_LENGTH
      ? Buffer.from(body)
      : new BodyPieces(
          Array.from(stringPieces(body, STRING_PIECE_LENGTH), (piece) => Buffer.from(piece)),
        );
  }
  if (body instanceof Uint8Array) {
    return body;
  }
  if (body instanceof ArrayBuffer) {
    return new Uint8Array(body);
  }
  if (body instanceof ReadableStream) {
    return body as ReadableStream<Uint8Array>;
  }
  throw new TypeError("httpFetch sends a string, bytes, BodyPieces or a ReadableStream body only");
}

/** Sends `body` on `outgoing` and ends it; a stream as it is read, a failing stream fails it. */
export function writeBody(outgoing: ClientRequest, body: RequestBody): void {
  if (body === undefined || body instanceof Uint8Array) {
    outgoing.end(body);
    return;
  }
  if (body instanceof BodyPieces) {
    // Queued as they are (no copy); the socket writes them out together.
    for (const piece of body.pieces) {
      outgoing.write(piece);
    }
    outgoing.end();
    return;
  }
  void pipeStream(body, outgoing);
}

/** Writes a web stream's chunks as the socket takes them; a failing stream fails the request. */
async function pipeStream(
  body: ReadableStream<Uint8Array>,
  outgoing: ClientRequest,
): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        outgoing.end();
        return;
      }
      if (outgoing.destroyed) {
        await reader.cancel();
        return;
      }
      if (!outgoing.write(value)) {
        await writable(outgoing);
      }
    }
  } catch (error) {
    outgoing.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Resolves once `outgoing` takes writes again ("drain") or is gone ("close"), removing both
 * listeners either way: a long upload waits here many times and must not pile up listeners.
 */
function writable(outgoing: ClientRequest): Promise<void> {
  return new Promise<void>((resume) => {
    const settle = () => {
      outgoing.off("drain", settle);
      outgoing.off("close", settle);
      resume();
    };
    outgoing.on("drain", settle);
    outgoing.on("close", settle);
  });
}

/** The fetches that send a {@link BodyPieces} body as its pieces. */
const pieceSendingFetches = new WeakSet<object>();

/**
 * Marks `fetchFunction` as one that sends a {@link BodyPieces} body: turnloop's `httpFetch` and
 * its kin (http-fetch.ts), and wrappers that hand the body unchanged to such a fetch.
 * @returns `fetchFunction` itself.
 */
export function sendingBodyPieces<F extends typeof fetch>(fetchFunction: F): F {
  pieceSendingFetches.add(fetchFunction);
  return fetchFunction;
}

/** Whether `fetchFunction` was marked by {@link sendingBodyPieces}. */
export function sendsBodyPieces(fetchFunction: unknown): boolean {
  return typeof fetchFunction === "function" && pieceSendingFetches.has(fetchFunction);
}
