import type { Writable } from "node:stream";
import type * as acp from "@agentclientprotocol/sdk";
import type { OpenRequests } from "./invalid-params.js";

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
 *
 * `answered`: a request answered before the connection was made (src/acp/start.ts writes the
 * `initialize` answer before the SDK loads). The first answer to its id is not written; if its
 * JSON text differs from the one written, that is said through `answered.log`.
 *
 * `requests`: the requests read (message-edges.ts notes them); each answer is written as
 * `requests.answer` gives it (a `-32602` said in words, invalid-params.ts).
 */
export function messageWriter(
  output: Writable,
  answered?: AnsweredEarly,
  requests?: OpenRequests,
): WritableStream<acp.AnyMessage> {
  let pending = answered;
  return new WritableStream<acp.AnyMessage>({
    write(given) {
      if (output.destroyed || output.writableEnded) {
        throw new Error("ACP output is closed");
      }
      const message = requests === undefined ? given : requests.answer(given);
      const line = JSON.stringify(message);
      if (pending !== undefined && isAnswerTo(message, pending.id)) {
        const early = pending;
        pending = undefined;
        if (line !== early.line) {
          early.log(
            `turnloop: the SDK's answer ${line} differs from the one written ${early.line}`,
          );
        }
        return;
      }
      if (output.write(`${line}\n`)) {
        return;
      }
      return drained(output);
    },
  });
}

/** A request answered before the connection was made: its id and the answer's JSON text. */
export interface AnsweredEarly {
  id: string | number;
  /** The answer as written, without its `\n`. */
  line: string;
  /** Where a different answer from the connection is reported (stderr). */
  log: (line: string) => void;
}

/** Whether `message` is a response (no `method`) to the request `id`. */
function isAnswerTo(message: acp.AnyMessage, id: string | number): boolean {
  return !("method" in message) && "id" in message && message.id === id;
}

/**
 * An ACP stream whose incoming side is `stream`'s and whose outgoing side is
 * {@link messageWriter} on `output` (`answered` and `requests` as there). `stream`'s own writable stays open for what the framing
 * answers itself (malformed lines, invalid requests); it writes to the same `output`, a whole
 * line at a time, so lines never interleave.
 */
export function withDirectOutput(
  stream: acp.Stream,
  output: Writable,
  answered?: AnsweredEarly,
  requests?: OpenRequests,
): acp.Stream {
  return { readable: stream.readable, writable: messageWriter(output, answered, requests) };
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
