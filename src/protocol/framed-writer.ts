import type { Writable } from "node:stream";
import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc/node.js";

/**
 * A vscode-jsonrpc `MessageWriter` for the `Content-Length` framing (the LSP base protocol, which
 * the Copilot SDK speaks): each message is serialised and handed to `output` at once, header and
 * body in one write. It replaces vscode-jsonrpc's `StreamMessageWriter`, which starts each message
 * on a later turn of the event loop (a one-at-a-time semaphore that waits a `setImmediate` per
 * message) and writes its header and body separately: with one notification per streamed delta,
 * the relay then moved one delta per event-loop turn and its queue grew without bound. Bytes and
 * order are the same (`Content-Length: <UTF-8 bytes>\r\n\r\n` + `JSON.stringify(message)`, in
 * call order).
 *
 * Backpressure: while `output.write` returns `false`, the promise of a write waits for `drain`
 * (the bytes are already in `output`'s buffer, in order).
 * Errors: a write to an `output` that was destroyed or ended rejects and is reported through
 * `onError`, as are `output`'s own errors; `output`'s `close` is reported through `onClose`.
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;
  /** While `output` is full: resolves at its next `drain`, shared by every write meanwhile. */
  private drained: Promise<void> | undefined;

  constructor(private readonly output: Writable) {
    super();
    output.on("error", (error: Error) => this.fireError(error));
    output.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const output = this.output;
    if (output.destroyed || output.writableEnded) {
      const error = new Error("the connection's output is closed");
      this.fireError(error, message, ++this.errorCount);
      return Promise.reject(error);
    }
    const body = JSON.stringify(message);
    if (output.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)) {
      return Promise.resolve();
    }
    this.drained ??= new Promise((resolve) => {
      // `close` without `drain`: the error (if any) is reported through onError/onClose.
      const settle = () => {
        output.off("drain", settle);
        output.off("close", settle);
        this.drained = undefined;
        resolve();
      };
      output.on("drain", settle);
      output.on("close", settle);
    });
    return this.drained;
  }

  /** Ends `output`, as `StreamMessageWriter` does. */
  end(): void {
    this.output.end();
  }
}
