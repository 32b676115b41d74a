import type { IncomingMessage } from "node:http";
import { HeaderList } from "./http-headers.js";

/**
 * The parts of the Fetch standard's `Response` that model requests use, without Node's global
 * `Response`: touching it loads undici (about 6 MiB of resident memory, issue 26; figures in
 * bench/notes/targets.md), and so would the global `Headers` (http-headers.ts has ours). `httpFetch`
 * (http-fetch.ts) answers with a {@link HttpResponse}, its body a web stream fed from the socket
 * ({@link bodyStream}); the AI SDK reads `ok`, `status`, `statusText`, `headers` (iterated,
 * `get`) and `body` (a web `ReadableStream`) or `text()`.
 */

/** What a {@link HttpResponse} is made of. */
export interface HttpResponseInit {
  status: number;
  statusText: string;
  headers: HeaderList;
  /** The URL that answered (after redirects). */
  url: string;
  redirected: boolean;
}

/** A `Response` without undici: status, headers and a web `ReadableStream` body read once. */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderList;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = "basic";
  readonly body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(body: ReadableStream<Uint8Array> | null, init: HttpResponseInit) {
    this.body = body;
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
    this.redirected = init.redirected;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The whole body's bytes. @throws TypeError when the body was already read. */
  async bytes(): Promise<Uint8Array> {
    if (this.#used) {
      throw new TypeError("Body is unusable: Body has already been read");
    }
    this.#used = true;
    if (this.body === null) {
      return new Uint8Array(0);
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) {
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  /** The body decoded as UTF-8 (a leading byte order mark dropped, as the Fetch standard says). */
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  /** @throws SyntaxError for a body that is not JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** This response with another body (for a `fetch` that rewrites what it passes on). */
  withBody(body: ReadableStream<Uint8Array> | string): HttpResponse {
    const stream = typeof body === "string" ? streamOfText(body) : body;
    return new HttpResponse(stream, this);
  }

  /** As the `Response` the `fetch` type promises; the members above are those callers read. */
  asResponse(): Response {
    return this as unknown as Response;
  }
}

/** A stream of `text`'s UTF-8 bytes in one chunk. */
function streamOfText(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

/**
 * A rewriting of a body's bytes as they arrive ({@link bodyStream}): `take` gets each chunk read
 * and returns what to pass on for it (undefined or empty: nothing yet), `end` what is left at the
 * body's end. Not called after the body failed or was cancelled.
 */
export interface BodyMap {
  take(bytes: Uint8Array): Uint8Array | undefined;
  end(): Uint8Array | undefined;
}

/** A response's headers as {@link HeaderList}, duplicates combined (`rawHeaders` keeps them all). */
export function responseHeaders(message: IncomingMessage): HeaderList {
  const headers = new HeaderList();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    headers.append(raw[index] ?? "", raw[index + 1] ?? "");
  }
  return headers;
}

/**
 * `source` (a response's bytes, decoded if it was compressed) as a web stream that reads only as
 * fast as its reader pulls (the source is paused while {@link BODY_BUFFER_BYTES} wait). The pieces
 * one socket read yields (each piece of a chunked body is a `data` event of its own) are joined
 * into one chunk, as undici does: passing thousands of small events one by one down the SSE
 * stages cost the relay about three times the CPU (bench/notes/targets.md). A source that fails or
 * closes before its end errors the stream, after what arrived, with undici's shape,
 * `TypeError("terminated")` with the cause (e.g. `ECONNRESET`), which src/llm/errors.ts counts as
 * a network failure. The end closes the stream two turns of the event loop after the last read, so
 * that read's pieces reach a reader several stages away before any stage sees the end (issue 26,
 * figure 4c: bench/notes/targets.md, "Relay latency tails"), and the reader's `setImmediate`
 * work for them goes first (figure 4e: see closeTwoTurnsLater). Cancelling the stream destroys
 * `socketOwner` (the response), so the connection is not reused.
 *
 * With `map`, the stream carries what `map` makes of the bytes instead (a `fetch` that rewrites
 * the body as it arrives, openai-chat-quirks.ts): one web stream stage less per response than
 * piping this stream through a `TransformStream` doing the same (bench/notes/server.md, session 14).
 */
export function bodyStream(
  source: NodeJS.ReadableStream & { destroy(error?: Error): void },
  socketOwner: IncomingMessage,
  map?: BodyMap,
  signal?: AbortSignal,
): ReadableStream<Uint8Array> {
  const state: BodyState = { finished: false, cancelled: false, pieces: [] };
  const onBytes = signal === undefined ? undefined : bodyByteWatchers.get(signal);
  if (onBytes !== undefined) {
    const lines = new CommentLines();
    source.on("data", (chunk: Buffer) => {
      if (lines.carriesMore(chunk)) {
        onBytes(chunk);
      }
    });
  }
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        feedBody(controller, source, socketOwner, state, map);
      },
      pull() {
        if (source.isPaused()) {
          source.resume();
        }
      },
      cancel() {
        state.finished = true;
        state.cancelled = true;
        state.pieces = [];
        socketOwner.destroy();
        source.destroy();
      },
    },
    { highWaterMark: BODY_BUFFER_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** What {@link watchBodyBytes} registered, by the request's abort signal (held weakly). */
const bodyByteWatchers = new WeakMap<AbortSignal, (bytes: Buffer) => void>();

/**
 * Calls `onBytes` with the bytes each time bytes of the body of a response to a request made with
 * `signal` (its `fetch` init's) arrive, before anything parses them, unless they are only SSE
 * comment lines (`: ping`) and blank lines: the model stream's stall watchdog (model-attempt.ts) counts such
 * bytes as a sign of life, so one large event that takes long to arrive is no stall, while a
 * server sending keep-alive comments and nothing else still stalls (case 20, test C). For the
 * responses of `httpFetch` and its kin (http-fetch.ts); the AI SDK hands the call's `abortSignal`
 * to `fetch` as it is.
 */
export function watchBodyBytes(signal: AbortSignal, onBytes: (bytes: Buffer) => void): void {
  bodyByteWatchers.set(signal, onBytes);
}

/**
 * Follows a body's lines across chunks to tell whether a chunk carries anything but SSE comment
 * lines (starting with `:`) and blank lines. Lines are split at line feeds only: a stream with CR
 * line ends is one line per chunk here, judged by its first character. Linear in the bytes.
 */
class CommentLines {
  #atLineStart = true;
  #inComment = false;

  /** Whether `bytes` carry more than comments and blank lines. */
  carriesMore(bytes: Buffer): boolean {
    for (let start = 0; start < bytes.length; ) {
      if (this.#atLineStart) {
        const first = bytes[start];
        if (first === LINE_FEED || first === CARRIAGE_RETURN) {
          start += 1;
          continue;
        }
        this.#atLineStart = false;
        this.#inComment = first === COLON;
      }
      if (!this.#inComment) {
        this.#endAt(bytes);
        return true;
      }
      const end = bytes.indexOf(LINE_FEED, start);
      if (end === -1) {
        return false;
      }
      this.#atLineStart = true;
      start = end + 1;
    }
    return false;
  }

  /** Takes the state at the end of `bytes`, from their last line. */
  #endAt(bytes: Buffer): void {
    const lastLineFeed = bytes.lastIndexOf(LINE_FEED);
    if (lastLineFeed !== -1) {
      this.#atLineStart = lastLineFeed === bytes.length - 1;
      this.#inComment = bytes[lastLineFeed + 1] === COLON;
    }
  }
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const COLON = 0x3a;

/** A {@link bodyStream}'s progress: ended or failed, cancelled, pieces not yet delivered. */
interface BodyState {
  finished: boolean;
  cancelled: boolean;
  pieces: Buffer[];
}

/**
 * Feeds `controller` from `source`: the pieces of one socket read in one chunk (or what `map`
 * makes of them), `source` paused while the stream is full, ended or errored with the response.
 */
function feedBody(
  controller: ReadableStreamDefaultController<Uint8Array>,
  source: NodeJS.ReadableStream & { destroy(error?: Error): void },
  socketOwner: IncomingMessage,
  state: BodyState,
  map: BodyMap | undefined,
): void {
  const enqueue = (bytes: Uint8Array | undefined) => {
    if (bytes !== undefined && bytes.byteLength > 0) {
      controller.enqueue(bytes);
    }
  };
  // Runs once the socket read that brought the pieces is handled (a microtask).
  const deliver = () => {
    const { pieces } = state;
    if (pieces.length === 0 || state.finished) {
      return;
    }
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    state.pieces = [];
    enqueue(map === undefined ? bytes : map.take(bytes));
    if ((controller.desiredSize ?? 0) <= 0) {
      source.pause();
    }
  };
  source.on("data", (chunk: Buffer) => {
    state.pieces.push(chunk);
    if (state.pieces.length === 1) {
      queueMicrotask(deliver);
    }
  });
  source.on("end", () => {
    deliver();
    state.finished = true;
    enqueue(map?.end());
    closeTwoTurnsLater(controller, () => state.cancelled);
  });
  const fail = (error: Error) => {
    deliver();
    if (!state.finished) {
      state.finished = true;
      controller.error(terminated(error));
    }
  };
  onBreak(source, socketOwner, fail, () => state.finished);
}

/**
 * Closes `controller` two turns of the event loop later, unless its reader cancelled meanwhile.
 * The pieces of the last read first travel every stage after this one to the reader
 * (microtasks): a stage that saw the end at once (the AI SDK's response wrapper releases its
 * reader, which the first time in a process builds an error in a new `vm` context) would delay
 * them. And what the reader queued with `setImmediate` on seeing them runs before the end is
 * handled: the ACP face sends a reply's waiting text chunk on its next `setImmediate`
 * (src/acp/update-outbox.ts), which otherwise ran after the stages' end, the reply's assembly,
 * its usage and its log lines (issue 26, figure 4e).
 */
function closeTwoTurnsLater(
  controller: ReadableStreamDefaultController<Uint8Array>,
  cancelled: () => boolean,
): void {
  setImmediate(() =>
    setImmediate(() => {
      if (!cancelled()) {
        controller.close();
      }
    }),
  );
}

/**
 * Calls `fail` when `source` errors, or closes before `finished()` (every response's source closes
 * after its end: the error is built only when it is used, saving a stack trace per response); a
 * response aborted destroys `source`.
 */
function onBreak(
  source: NodeJS.ReadableStream & { destroy(error?: Error): void },
  socketOwner: IncomingMessage,
  fail: (error: Error) => void,
  finished: () => boolean,
): void {
  source.on("error", fail);
  source.on("close", () => {
    if (!finished()) {
      fail(new Error("other side closed"));
    }
  });
  socketOwner.on("aborted", () => {
    source.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
  });
}

/** Bytes of a response body read ahead of its reader (64 KiB, a socket read or four). */
const BODY_BUFFER_BYTES = 65_536;

/** undici's error for a body that broke off: `TypeError("terminated")` with its cause. */
export function terminated(cause: Error): Error {
  if (cause.name === "AbortError" || cause.name === "TimeoutError") {
    return cause;
  }
  return new TypeError("terminated", { cause });
}

/** The body's bytes, decompressed when the server says it compressed them (gzip, deflate, br). */
export function decoded(
  message: IncomingMessage,
  encoding: string | null,
): NodeJS.ReadableStream & { destroy(error?: Error): void } {
  const coding = encoding?.trim().toLowerCase();
  if (coding !== "gzip" && coding !== "x-gzip" && coding !== "deflate" && coding !== "br") {
    return message;
  }
  const zlib = process.getBuiltinModule("node:zlib");
  // As undici: flush what has arrived, so a compressed event stream is not held back.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    coding === "br"
      ? zlib.createBrotliDecompress()
      : coding === "deflate"
        ? zlib.createInflate(flush)
        : zlib.createGunzip(flush);
  message.on("error", (error) => decoder.destroy(error));
  return message.pipe(decoder);
}
