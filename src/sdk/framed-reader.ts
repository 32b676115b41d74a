import type { Readable } from "node:stream";
import {
  AbstractMessageReader,
  type DataCallback,
  Disposable,
  type Message,
  type MessageReader,
  type MessageStrategy,
  type NotificationMessage,
} from "vscode-jsonrpc/node.js";

/** Longest frame header read (bytes) before the stream is called unreadable; real ones are ~25. */
const MAX_HEADER_BYTES = 8_192;
const HEADER_END = "\r\n\r\n";

/**
 * A vscode-jsonrpc `MessageReader` for the `Content-Length` framing the SDK server speaks (the LSP
 * base protocol, as the Copilot SDK frames it: `Content-Length: <UTF-8 bytes>\r\n\r\n` + JSON;
 * other header fields are ignored, the body is read as UTF-8 as vscode-jsonrpc does). It replaces
 * vscode-jsonrpc's `StreamMessageReader`, which hands on each message through a one-at-a-time
 * semaphore that waits a `setImmediate` and two promises per message: with one `session.event`
 * notification per streamed delta, that was most of an app's cost of the relay (issue 26,
 * figure 4f). Here every whole frame of a chunk is parsed and handed on at once, in order.
 *
 * Notifications whose method was given to {@link handleDirectly} skip the connection's queue (it,
 * too, handles one message per `setImmediate`) and go straight to their handler — but only while
 * the connection has handled every message this reader passed to it before (counted through
 * {@link strategy}, which the connection must be created with), so the order in which an app sees
 * answers, requests and notifications is the order they arrived in.
 *
 * Errors (through `onError`): a header without a numeric `Content-Length`, or 8 KiB received
 * without a header's end, ends reading (nothing after it can be framed again); a body that is not
 * JSON is reported and skipped. The stream's `error` and `close` are reported through `onError` and `onClose`.
 * `onPartialMessage` never fires.
 */
export class FramedMessageReader extends AbstractMessageReader implements MessageReader {
  private callback: DataCallback | undefined;
  /** Bytes not yet handed on: the rest of the last chunk, and chunks after it. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The length of the body whose header was read, or -1 while a header is awaited. */
  private bodyBytes = -1;
  private failed = false;
  private readonly direct = new Map<string, (params: unknown) => void>();
  /** Messages passed to the connection, and those the connection has handled so far. */
  private passed = 0;
  private handled = 0;

  /**
   * The connection's `messageStrategy` (`createMessageConnection`'s options): counts the messages
   * the connection handles, so that a direct notification never overtakes one still queued there.
   */
  readonly strategy: MessageStrategy = {
    handleMessage: (message, next) => {
      try {
        next(message);
      } finally {
        if (!isCancellation(message)) {
          this.handled++;
        }
      }
    },
  };

  constructor(private readonly input: Readable) {
    super();
  }

  /**
   * Hands notifications of `method` to `handler` (their `params`) instead of to the connection,
   * whenever nothing is queued before them there. A handler that throws is ignored, as
   * vscode-jsonrpc ignores a throwing notification handler without a logger.
   */
  handleDirectly(method: string, handler: (params: unknown) => void): void {
    this.direct.set(method, handler);
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer) => this.read(chunk);
    const onError = (error: Error) => this.fireError(error);
    const onClose = () => this.fireClose();
    this.input.on("data", onData).on("error", onError).on("close", onClose);
    return Disposable.create(() => {
      this.callback = undefined;
      this.input.off("data", onData).off("error", onError).off("close", onClose);
    });
  }

  override dispose(): void {
    this.callback = undefined;
    this.direct.clear();
    super.dispose();
  }

  private read(chunk: Buffer): void {
    if (this.failed) {
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.bodyBytes >= 0 && this.heldBytes < this.bodyBytes) {
      return; // A long body arriving in pieces is joined once, when whole.
    }
    const data = this.held.length === 1 ? chunk : Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    const end = this.frames(data);
    if (end < data.length) {
      this.held.push(data.subarray(end));
      this.heldBytes = data.length - end;
    }
  }

  /** Hands on every whole frame in `data`. @returns where the first incomplete one starts. */
  private frames(data: Buffer): number {
    let offset = 0;
    while (this.callback !== undefined && !this.failed) {
      if (this.bodyBytes < 0) {
        const canonical = canonicalHeader(data, offset);
        if (canonical !== undefined) {
          this.bodyBytes = canonical.bodyBytes;
          offset = canonical.bodyStart;
        }
      }
      if (this.bodyBytes < 0) {
        const headerEnd = data.indexOf(HEADER_END, offset, "latin1");
        if (headerEnd === -1) {
          if (data.length - offset > MAX_HEADER_BYTES) {
            this.fail(`a frame header longer than ${MAX_HEADER_BYTES} bytes`);
            return data.length;
          }
          return offset;
        }
        this.bodyBytes = contentLength(data.toString("latin1", offset, headerEnd));
        if (this.bodyBytes < 0) {
          this.fail("a frame header without a numeric Content-Length");
          return data.length;
        }
        offset = headerEnd + HEADER_END.length;
      }
      if (data.length - offset < this.bodyBytes) {
        return offset;
      }
      const body = data.toString("utf8", offset, offset + this.bodyBytes);
      offset += this.bodyBytes;
      this.bodyBytes = -1;
      this.deliver(body);
    }
    return data.length;
  }

  private deliver(body: string): void {
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (error) {
      this.fireError(error);
      return;
    }
    const handler = this.passed === this.handled ? this.directHandler(message) : undefined;
    if (handler !== undefined) {
      try {
        handler((message as NotificationMessage).params);
      } catch {
        // See handleDirectly.
      }
      return;
    }
    if (!isCancellation(message)) {
      this.passed++;
    }
    // Not every value is a message: the connection reports those.
    this.callback?.(message as Message);
  }

  /** The direct handler of a notification, if its method has one. */
  private directHandler(message: unknown): ((params: unknown) => void) | undefined {
    if (typeof message !== "object" || message === null || "id" in message) {
      return undefined;
    }
    const method = (message as { method?: unknown }).method;
    return typeof method === "string" ? this.direct.get(method) : undefined;
  }

  private fail(problem: string): void {
    this.failed = true;
    this.held = [];
    this.heldBytes = 0;
    this.fireError(new Error(`unreadable frame from the turnloop server: ${problem}`));
  }
}

/**
 * `$/cancelRequest`, which the connection may act on at once without queueing it: not counted,
 * so that the counts stay equal; it is not shown to the app, so a notification may pass it.
 */
function isCancellation(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as { method?: unknown }).method === "$/cancelRequest"
  );
}

/** `Content-Length: ` in bytes: how the server starts every frame's header (framed-writer.ts). */
const CANONICAL_START = Buffer.from("Content-Length: ", "latin1");
/** Digits of the longest `Content-Length` read on the quick path (a safe integer's 15). */
const MAX_LENGTH_DIGITS = 15;
const ZERO = 0x30;
const CR = 0x0d;
const LF = 0x0a;

/**
 * The frame header at `offset` when it is the server's own, `Content-Length: <digits>\r\n\r\n`,
 * read from the bytes (one per streamed delta: no string is made of it); undefined for any other
 * header, and for one not wholly in `data`, which the general path reads.
 */
function canonicalHeader(
  data: Buffer,
  offset: number,
): { bodyBytes: number; bodyStart: number } | undefined {
  const start = CANONICAL_START.length;
  if (data.length - offset < start + 5) {
    return undefined;
  }
  for (let index = 0; index < start; index++) {
    if (data[offset + index] !== CANONICAL_START[index]) {
      return undefined;
    }
  }
  let at = offset + start;
  let bodyBytes = 0;
  for (; at < data.length && at - offset - start < MAX_LENGTH_DIGITS; at++) {
    const digit = (data[at] ?? 0) - ZERO;
    if (digit < 0 || digit > 9) {
      break;
    }
    bodyBytes = bodyBytes * 10 + digit;
  }
  const digits = at - offset - start;
  const ends = data[at] === CR && data[at + 1] === LF && data[at + 2] === CR && data[at + 3] === LF;
  return digits > 0 && ends ? { bodyBytes, bodyStart: at + 4 } : undefined;
}

/** The value of a header block's `Content-Length` field, or -1 when it has none or a bad one. */
function contentLength(header: string): number {
  for (const line of header.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon !== -1 && line.slice(0, colon).trim().toLowerCase() === "content-length") {
      const value = line.slice(colon + 1).trim();
      return /^\d+$/.test(value) ? Number(value) : -1;
    }
  }
  return -1;
}
