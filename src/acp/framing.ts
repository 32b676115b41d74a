import * as acp from "@agentclientprotocol/sdk";
import { collectGarbage, HUGE_MESSAGE_BYTES, reclaimAfter } from "../llm/huge-messages.js";
import { lineHead, requestIdProblem, usableRequestId } from "../session/message-head.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES_VARIABLE } from "../session/message-size.js";
import { LineReader, type ReadLine } from "./line-reader.js";
import { type MessageEdgeOptions, withMessageEdges } from "./message-edges.js";

export interface FramingOptions
  extends Pick<MessageEdgeOptions, "onIdlessError" | "onCancelRead" | "requests"> {
  /** Longest accepted line, in bytes (default {@link DEFAULT_MAX_MESSAGE_BYTES}, 128 MiB). */
  maxMessageBytes?: number;
  /** Told about every oversized line. */
  log?: (line: string) => void;
  /** Bytes read from the same input before this stream was made: read before `input`'s. */
  prefix?: Uint8Array;
}

/**
 * ACP v1 transports (stdio): newline-delimited JSON-RPC over byte streams, as an ACP SDK `Stream`
 * of messages (the seam the SDK's connection reads; the SDK's own `ndJsonStream` is replaced
 * because it holds a line's bytes, its text and the parsed message at once, and fails the whole
 * stream on a line over its limit). Lines are read by {@link LineReader}; each is parsed here
 * and handed to the connection, which validates it. The edges follow the SDK's `ndJsonStream`:
 * a blank line is skipped; malformed JSON is answered `-32700` with `id: null`; a JSON array is
 * answered `-32600` ("JSON-RPC batches are not supported"), anything else that is not an object
 * `-32600` with the value as `data`; the connection goes on. A line over the limit is dropped as
 * it is read, and its start tells what it was (session/message-head.ts). The client's answer to a request
 * of ours (`result` or `error`, no `method`) fails that request: the connection is handed an
 * error answer with its id (see {@link answerTooLarge}), and the client is sent nothing. Anything
 * else with an `id` near its start is answered here as a request with that id, `-32600`
 * "Message too large: N bytes; the limit is L bytes per line.", whatever the connection's state
 * (before `initialize` too: the SDK's connection never sees the line); otherwise it is answered
 * `-32600` with `id: null` (JSON-RPC 2.0 §5: the id of a request that could not be read is
 * null), a string saying what was dropped as the error's `data`. The
 * JSON-RPC edges the SDK's connection leaves unanswered are answered by {@link withMessageEdges}.
 * Order: the SDK's connection starts handling a message as it reads it, then tries its handlers
 * in the order they were registered, one `await` each (SDK 2.4.0 `processIncomingMessage`), so
 * of two requests handed on together the one whose handler was registered first started first,
 * whatever the client's order (a `session/prompt` then a `session/close` written in one chunk: the
 * close ran first and the prompt found no session). After each request the next line waits for
 * the next turn of the event loop, when that request has reached its handler (the SDK's own
 * validation still runs): the requests start in the order the client sent them.
 * Writing: one `JSON.stringify(message)` and `\n` per message, in order.
 */
export function acpByteStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  options: FramingOptions = {},
): acp.Stream {
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const write = jsonLineWriter(output);
  const readable = messagesFrom(input, {
    limit,
    log: options.log ?? (() => {}),
    write,
    prefix: options.prefix,
  });
  const writable = new WritableStream<acp.AnyMessage>({ write: (message) => write(message) });
  return withMessageEdges(
    { readable, writable },
    {
      ...(options.log === undefined ? {} : { log: options.log }),
      ...(options.onIdlessError === undefined ? {} : { onIdlessError: options.onIdlessError }),
      ...(options.onCancelRead === undefined ? {} : { onCancelRead: options.onCancelRead }),
      ...(options.requests === undefined ? {} : { requests: options.requests }),
    },
  );
}

type WriteMessage = (message: acp.AnyMessage) => Promise<void>;

/** Writes each message as one JSON line to `output`, in call order; a failed write rejects. */
function jsonLineWriter(output: WritableStream<Uint8Array>): WriteMessage {
  const encoder = new TextEncoder();
  let queue = Promise.resolve();
  return (message) => {
    const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
    const write = queue.then(async () => {
      const writer = output.getWriter();
      try {
        await writer.write(bytes);
      } finally {
        writer.releaseLock();
      }
    });
    queue = write.catch(() => undefined);
    return write;
  };
}

interface ReadOptions {
  limit: number;
  log: (line: string) => void;
  write: WriteMessage;
  prefix: Uint8Array | undefined;
}

/** The messages of `input`'s lines (see {@link acpByteStream}); errors the input's failure. */
function messagesFrom(
  input: ReadableStream<Uint8Array>,
  options: ReadOptions,
): ReadableStream<acp.AnyMessage> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  return new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      const source = input.getReader();
      reader = source;
      const lines = new LineReader(options.limit);
      const hand = async (line: ReadLine) => {
        const message = await messageOf(line, options);
        if (message !== undefined && !cancelled) {
          controller.enqueue(message);
          await handedOn(message);
        }
      };
      try {
        // One chunk per call, so that no frame suspended in `read()` still holds the last chunk.
        const readChunk = async (): Promise<boolean> => {
          const { value, done } = await source.read();
          if (done || cancelled) {
            return false;
          }
          for (const line of lines.push(value)) {
            await hand(line);
          }
          return true;
        };
        if (options.prefix !== undefined) {
          for (const line of lines.push(options.prefix)) {
            await hand(line);
          }
        }
        while (await readChunk()) {}
        const last = cancelled ? undefined : lines.flush();
        if (last !== undefined) {
          await hand(last);
        }
      } catch (error) {
        if (!cancelled) {
          controller.error(error);
          source.cancel(error).catch(() => undefined);
        }
        return;
      } finally {
        source.releaseLock();
      }
      if (!cancelled) {
        controller.close();
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader?.cancel(reason);
    },
  });
}

/**
 * Resolves once `message`, just handed to the SDK's connection, has been taken on: for a request
 * (a `method` and an `id`, JSON-RPC 2.0 §4), on the next turn of the event loop, when every
 * pending promise job has run and it has reached its handler (see {@link acpByteStream}); for
 * anything else, at once.
 */
async function handedOn(message: acp.AnyMessage): Promise<void> {
  if ("method" in message && "id" in message) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The message one line holds, or `undefined` when there is none (the line was answered here). */
async function messageOf(
  line: ReadLine,
  options: ReadOptions,
): Promise<acp.AnyMessage | undefined> {
  if (line.kind === "oversized") {
    return tooLarge(line.head, line.bytes, options);
  }
  const value = parsed(line);
  if (value === BLANK) {
    return undefined;
  }
  if (value === MALFORMED) {
    await options.write(idlessError(acp.RequestError.parseError()));
    return undefined;
  }
  if (Array.isArray(value)) {
    const batch = acp.RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported");
    await options.write(idlessError(batch));
    return undefined;
  }
  if (typeof value !== "object" || value === null) {
    await options.write(idlessError(acp.RequestError.invalidRequest(value)));
    return undefined;
  }
  const { id } = value as { id?: unknown };
  if ("method" in value && id !== undefined && id !== null && !usableRequestId(id)) {
    // The same rule as the server's (session/message-head.ts): answered with id null.
    const problem = `Invalid request: ${requestIdProblem(id)}`;
    await options.write(idlessError(new acp.RequestError(INVALID_REQUEST, problem)));
    return undefined;
  }
  return value as acp.AnyMessage;
}

const BLANK = Symbol("blank line");
const MALFORMED = Symbol("malformed JSON");

/**
 * The JSON value of a line (surrounding white space trimmed, as the SDK does). The line's text is
 * taken out of `line` (left empty): the read loop that holds `line` stays suspended, holding it,
 * until the next chunk comes, and a huge text must not live that long (issue 27 item 3). For a
 * huge line a full collection runs before parsing, so that only the text is alive beside the
 * parsed value, and another is scheduled after it, for the text.
 */
function parsed(line: { text: string; bytes: number }): unknown {
  const text = line.text.trim();
  line.text = "";
  if (text === "") {
    return BLANK;
  }
  if (line.bytes >= HUGE_MESSAGE_BYTES) {
    collectGarbage();
  }
  try {
    return JSON.parse(text);
  } catch {
    return MALFORMED;
  } finally {
    reclaimAfter(line.bytes);
  }
}

function idlessError(error: acp.RequestError): acp.AnyMessage {
  return { jsonrpc: "2.0", id: null, error: error.toErrorResponse() } as acp.AnyMessage;
}

/**
 * Answers an oversized line (see {@link acpByteStream}). An answer of the client's to a request of
 * ours becomes an error answer to that request, handed on to the connection (the request fails
 * with it); nothing of any other oversized line is handed on.
 */
async function tooLarge(
  text: string,
  bytes: number,
  options: ReadOptions,
): Promise<acp.AnyMessage | undefined> {
  const { limit, log } = options;
  const head = lineHead(text);
  const dropped = `dropped a ${bytes}-byte message (the limit is ${limit} bytes, ${MAX_MESSAGE_BYTES_VARIABLE})`;
  if (head.kind === "response") {
    return answerTooLarge(head.id, bytes, options);
  }
  const { id } = head;
  const answer = id === undefined ? "; answered with id null" : `; request ${id} gets an error`;
  log(`turnloop: ${dropped}${answer}`);
  if (id === undefined) {
    await options.write(idlessError(acp.RequestError.invalidRequest(`turnloop: ${dropped}`)));
    return undefined;
  }
  const message = `Message too large: ${bytes} bytes; the limit is ${limit} bytes per line.`;
  const error = new acp.RequestError(INVALID_REQUEST, message).toErrorResponse();
  await options.write({ jsonrpc: "2.0", id: idValue(id), error } as acp.AnyMessage);
  return undefined;
}

/**
 * The client's oversized answer to our request `id`, as the error answer the connection hands to
 * that request (`-32600`, "the client's answer was N bytes; the limit is L bytes per line
 * (TURNLOOP_MAX_MESSAGE_BYTES)": a tool call that asked fails with it, for the model and the
 * user). Nothing is sent to the client. Without an id near its start, the answer cannot be
 * matched to a request: it is only logged.
 */
function answerTooLarge(
  id: string | undefined,
  bytes: number,
  options: ReadOptions,
): acp.AnyMessage | undefined {
  const { limit, log } = options;
  const reason = `the client's answer was ${bytes} bytes; the limit is ${limit} bytes per line (${MAX_MESSAGE_BYTES_VARIABLE})`;
  if (id === undefined) {
    log(`turnloop: ${reason}; it names no request near its start, so it was dropped`);
    return undefined;
  }
  log(`turnloop: ${reason}; request ${id} fails`);
  const error = new acp.RequestError(INVALID_REQUEST, reason).toErrorResponse();
  return { jsonrpc: "2.0", id: idValue(id), error } as acp.AnyMessage;
}

/** JSON-RPC 2.0 §5.1: the request is not a valid Request object (here: too large to read). */
const INVALID_REQUEST = -32600;

/** An id's JSON text, taken from the message itself (session/message-head.ts): a number or a string. */
function idValue(id: string): string | number {
  return JSON.parse(id) as string | number;
}
