import { Writable } from "node:stream";

/**
 * A writable that hands `target` what is written to it while a write is in flight as one
 * write: the first write of a burst goes out at once, the ones written until the next turn of
 * the event loop go out together after it. Used by `turnloop acp` on stdout, whose notifications
 * come one per streamed delta: on Linux a write to a pipe from `process.stdout` is a blocking
 * system call each, which cost more than the rest of the relay together. (The SDK server groups
 * its frames the same way in its message writer, `framed-writer.ts`.) Bytes and their order are unchanged; only their grouping into system calls.
 *
 * Strings are kept as strings and joined, so a burst is encoded to UTF-8 once, by `target`
 * (not once per message and copied again to concatenate); a burst holding a `Buffer` is
 * concatenated as bytes.
 *
 * Backpressure: a write's callback waits for `target`'s, so while `target` is slow this writable's
 * buffer fills and `write()` returns `false` above `highWaterMark` (default 1 Mi: UTF-16 code units
 * of strings, bytes of buffers).
 * Errors: `target`'s write error is this writable's error. `end()` ends nothing of `target`
 * (`process.stdout` cannot be closed); it resolves once every byte was handed to `target`.
 */
export function batchedOutput(target: NodeJS.WritableStream, highWaterMark = 1_048_576): Writable {
  const forward = (data: Uint8Array | string, callback: (error?: Error | null) => void) => {
    target.write(data, (error) => {
      if (error) {
        callback(error);
      } else {
        // The next turn: writes made meanwhile wait in this writable's buffer, then go as one.
        setImmediate(callback);
      }
    });
  };
  return new Writable({
    highWaterMark,
    decodeStrings: false,
    write: (chunk: Buffer | string, encoding, callback) =>
      forward(isUtf8Text(chunk, encoding) ? chunk : bytesOf(chunk, encoding), callback),
    writev: (chunks, callback) => forward(joined(chunks), callback),
  });
}

/** The chunks of a burst as one string (all UTF-8 text) or one buffer (anything else among them). */
function joined(
  chunks: ReadonlyArray<{ chunk: unknown; encoding: BufferEncoding }>,
): string | Buffer {
  if (chunks.every(({ chunk, encoding }) => isUtf8Text(chunk, encoding))) {
    return chunks.map(({ chunk }) => chunk as string).join("");
  }
  return Buffer.concat(chunks.map(({ chunk, encoding }) => bytesOf(chunk, encoding)));
}

function isUtf8Text(chunk: unknown, encoding: BufferEncoding): chunk is string {
  return typeof chunk === "string" && (encoding === "utf8" || encoding === "utf-8");
}

function bytesOf(chunk: unknown, encoding: BufferEncoding): Buffer {
  return typeof chunk === "string" ? Buffer.from(chunk, encoding) : (chunk as Buffer);
}
