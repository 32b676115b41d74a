import { Writable } from "node:stream";

/**
 * A writable that hands `target` what is written to it while a write is in flight as one
 * write: the first write of a burst goes out at once, the ones written until the next turn of
 * the event loop go out together after it. Used by the stdio faces (`turnloop acp`,
 * `--headless --stdio`), whose notifications come one per streamed delta: on Linux a write to a
 * pipe from `process.stdout` is a blocking system call each, which cost more than the rest of the
 * relay together. Bytes and their order are unchanged; only their grouping into system calls.
 *
 * Backpressure: a write's callback waits for `target`'s, so while `target` is slow this writable's
 * buffer fills and `write()` returns `false` above `highWaterMarkBytes` (default 1 MiB).
 * Errors: `target`'s write error is this writable's error. `end()` ends nothing of `target`
 * (`process.stdout` cannot be closed); it resolves once every byte was handed to `target`.
 */
export function batchedOutput(
  target: NodeJS.WritableStream,
  highWaterMarkBytes = 1_048_576,
): Writable {
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
    highWaterMark: highWaterMarkBytes,
    decodeStrings: true,
    write: (chunk: Buffer, _encoding, callback) => forward(chunk, callback),
    writev: (chunks, callback) =>
      forward(Buffer.concat(chunks.map(({ chunk }) => chunk as Buffer)), callback),
  });
}
