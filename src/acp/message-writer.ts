import type { Writable } from "node:stream";
import type * as acp from "@agentclientprotocol/sdk";

/**
 * The outgoing side of an ACP v1 stdio connection (newline-delimited JSON-RPC: one message, one
 * line): each message the connection writes is serialised and handed to `output` at once, as one
 * line. It replaces the SDK's own outgoing path (`ndJsonStream`'s writable behind the message-edge
 * filter), which takes each message through three web streams, a promise chain and a
 * `TextEncoder` copy: while relaying a fast stream, about a quarter of the agent's CPU
 * (bench/RESULTS.md, "Throughput, round 3, session 4").
 * Bytes and order are those of the SDK's path (`JSON.stringify(message) + "\n"`, in call order).
 *
 * Backpressure: while `output.write` returns `false`, the write waits for `drain`, so the
 * connection's queue (the SDK writes one message at a time) holds the rest.
 * Errors: a write to an `output` that was destroyed or ended, or whose write failed, rejects; the
 * SDK's connection then closes.
 */
export function messageWriter(output: Writable): WritableStream<acp.AnyMessage> {
  return new WritableStream<acp.AnyMessage>({
    write(message) {
      if (output.destroyed || output.writableEnded) {
        throw new Error("ACP output is closed");
      }
      if (output.write(`${JSON.stringify(message)}\n`)) {
        return;
      }
      return drained(output);
    },
  });
}

/**
 * An ACP stream whose incoming side is `stream`'s and whose outgoing side is
 * {@link messageWriter} on `output`. `stream`'s own writable stays open for what the framing
 * answers itself (malformed lines, invalid requests); it writes to the same `output`, a whole
 * line at a time, so lines never interleave.
 */
export function withDirectOutput(stream: acp.Stream, output: Writable): acp.Stream {
  return { readable: stream.readable, writable: messageWriter(output) };
}

/** Resolves at `output`'s next `drain`; rejects if it fails or closes first. */
function drained(output: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      output.off("drain", onDrain);
      output.off("error", settle);
      output.off("close", onClose);
      if (error === undefined) {
        resolve();
      } else {
        reject(error);
      }
    };
    const onDrain = () => settle();
    const onClose = () =>
      settle(new Error("ACP output closed while a message waited to be written"));
    output.on("drain", onDrain);
    output.on("error", settle);
    output.on("close", onClose);
  });
}
