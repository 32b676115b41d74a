import type { Writable } from "node:stream";
import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc/node.js";

/** What handing one frame on did: taken, taken above the output's mark, or refused. */
type Handed = "sent" | "full" | Error;

/** The promise of every write taken without backpressure (one object, not one per message). */
const SENT: Promise<void> = Promise.resolve();

/**
 * A vscode-jsonrpc `MessageWriter` for the `Content-Length` framing (the LSP base protocol, which
 * the Copilot SDK speaks): `Content-Length: <UTF-8 bytes>\r\n\r\n` + `JSON.stringify(message)`,
 * in call order. It replaces vscode-jsonrpc's `StreamMessageWriter`, which starts each message on
 * a later turn of the event loop (a one-at-a-time semaphore that waits a `setImmediate` per
 * message) and writes its header and body separately: with one notification per streamed delta,
 * the relay then moved one delta per event-loop turn and its queue grew without bound.
 *
 * Writes are grouped, not delayed: a message written while no write to `output` is in flight goes
 * out at once; the ones written until that write is done and one more turn of the event loop has
 * passed are joined and go out as one write. One notification is sent per streamed delta, and a
 * write per message (a system call each on a socket or a pipe) cost more than the relay itself
 * (issue 26, figure 4f). Bytes and their order are unchanged; only their grouping into writes.
 *
 * Backpressure: a write resolves at once while `output` and the frames waiting here stay within
 * `output`'s `writableHighWaterMark`; past it, it resolves with {@link flushed}.
 * Errors: a write to an `output` that was destroyed or ended rejects and is reported through
 * `onError`, as are `output`'s own errors (frames still waiting then are dropped: the peer is
 * gone); `output`'s `close` is reported through `onClose`.
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;
  /** Frames written while a write to `output` was in flight, joined, for the next write. */
  private waiting = "";
  /** A write to `output` is in flight (until its callback and one turn of the event loop). */
  private writing = false;
  /** While something is not yet taken by `output`: resolves once everything is (see flushed). */
  private allTaken: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly output: Writable) {
    super();
    output.on("error", (error: Error) => this.fireError(error));
    output.on("close", () => {
      this.waiting = "";
      this.settleIfTaken();
      this.fireClose();
    });
    output.on("drain", () => this.settleIfTaken());
  }

  write(message: Message): Promise<void> {
    const handed = this.hand(message);
    if (handed instanceof Error) {
      return Promise.reject(handed);
    }
    return handed === "sent" ? SENT : this.flushed();
  }

  /**
   * Writes `message` as {@link write} does, without a promise: for notifications, one per
   * streamed delta, whose sender does not wait (a closed output is reported through `onError`).
   * Frames from `send` and `write` leave in call order.
   */
  send(message: Message): void {
    this.hand(message);
  }

  /**
   * Sends a whole frame, header included ({@link contentLengthFrame}), as {@link send} does: for
   * a sender that knows the body's byte count without counting it (server/notification-text.ts).
   */
  sendFrame(frame: string): void {
    this.handFrame(frame);
  }

  /**
   * Resolves once every frame written so far was taken by `output` and `output` is below its
   * `writableHighWaterMark` (at its `drain`), or `output` closed. Never rejects.
   */
  flushed(): Promise<void> {
    if (this.everythingTaken()) {
      return SENT;
    }
    if (this.allTaken === undefined) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      this.allTaken = { promise, resolve };
    }
    return this.allTaken.promise;
  }

  /** Ends `output` (after the frames still waiting here), as `StreamMessageWriter` does. */
  end(): void {
    if (this.waiting !== "") {
      this.output.write(this.waiting);
      this.waiting = "";
    }
    this.output.end();
  }

  private hand(message: Message): Handed {
    return this.handFrame(contentLengthFrame(JSON.stringify(message)), message);
  }

  /** Hands on `frame` (a message's JSON text framed: {@link contentLengthFrame}). */
  private handFrame(frame: string, message?: Message): Handed {
    const output = this.output;
    if (output.destroyed || output.writableEnded) {
      const error = new Error("the connection's output is closed");
      this.fireError(error, message, ++this.errorCount);
      return error;
    }
    if (!this.writing) {
      return this.writeOut(frame) ? "sent" : "full";
    }
    this.waiting += frame;
    const buffered = output.writableLength + this.waiting.length;
    return buffered > output.writableHighWaterMark ? "full" : "sent";
  }

  /** Hands `data` to `output`. @returns `output.write`'s answer (false: above its mark). */
  private writeOut(data: string): boolean {
    this.writing = true;
    return this.output.write(data, this.afterWrite);
  }

  /** `output` took the last write: the next turn, what was written meanwhile goes as one write. */
  private readonly afterWrite = (error?: Error | null): void => {
    if (error) {
      // Reported through `output`'s `error` event; the peer will not read what waits.
      this.writing = false;
      this.waiting = "";
      this.settleIfTaken();
      return;
    }
    setImmediate(this.writeWaiting);
  };

  private readonly writeWaiting = (): void => {
    this.writing = false;
    if (this.waiting !== "" && !this.output.destroyed) {
      const burst = this.waiting;
      this.waiting = "";
      this.writeOut(burst);
    }
    this.settleIfTaken();
  };

  private everythingTaken(): boolean {
    return (this.waiting === "" && !this.output.writableNeedDrain) || this.output.destroyed;
  }

  private settleIfTaken(): void {
    if (this.allTaken !== undefined && this.everythingTaken()) {
      const { resolve } = this.allTaken;
      this.allTaken = undefined;
      resolve();
    }
  }
}

/**
 * `body` (a message's JSON text) with its header, as the LSP base protocol frames it:
 * `Content-Length: <bytes>\r\n\r\n<body>`, `bytes` its UTF-8 length (default: counted here;
 * a caller that knows it, such as an ASCII-only text's `length`, passes it).
 */
export function contentLengthFrame(body: string, bytes = Buffer.byteLength(body)): string {
  return `Content-Length: ${bytes}\r\n\r\n${body}`;
}
