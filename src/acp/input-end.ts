import type * as acp from "@agentclientprotocol/sdk";

/** JSON-RPC 2.0 §5.1: internal error (our request to the client can no longer be answered). */
const INTERNAL_ERROR = -32603;

/** What the SDK's connection takes for a request id (SDK 2.4.0 `isJsonRpcId`). */
type RequestId = string | number | null;

/**
 * `stream` with the end of its input held back until every request read from it has been
 * answered. The SDK's connection closes as soon as its input ends (SDK 2.4.0 `Connection.receive`),
 * dropping the answers still being worked on: a client that writes `initialize` and `session/new`
 * and then closes its end (`printf … | turnloop acp`) got the first answer only. Here, when the
 * input ends:
 * 1. `onInputEnd` is called (the agent cancels its running prompts, and the prompts read but not
 *    started yet start cancelled: README, stdin closing cancels);
 * 2. every request of ours the client has not answered yet, and every one sent from now on, is
 *    answered on the client's behalf with `-32603` "the client's input ended before it answered"
 *    (nothing more can come from it), so no work waits for the client;
 * 3. once every request read (`method` and an `id`, as the SDK takes them) has its answer written,
 *    the input ends for the connection too, which then closes as before.
 * A connection closed earlier (a failed write) cancels the input and stops the wait.
 */
export function answeredBeforeEnd(stream: acp.Stream, onInputEnd: () => void): acp.Stream {
  const ledger = new AnswerLedger();
  let controller: ReadableStreamDefaultController<acp.AnyMessage> | undefined;
  let source: ReadableStreamDefaultReader<acp.AnyMessage> | undefined;
  let ended = false;
  let cancelled = false;
  const answerFor = (id: RequestId) => {
    try {
      controller?.enqueue(noAnswer(id));
    } catch {
      // The connection's input is closed: it has rejected what it waited for itself.
    }
  };
  const readable = new ReadableStream<acp.AnyMessage>({
    async start(readController) {
      controller = readController;
      source = stream.readable.getReader();
      try {
        for (let read = await source.read(); !read.done; read = await source.read()) {
          ledger.read(read.value);
          readController.enqueue(read.value);
        }
      } catch (error) {
        if (!cancelled) {
          readController.error(error);
        }
        return;
      }
      ended = true;
      onInputEnd();
      ledger.takeAsked().forEach(answerFor);
      await ledger.allAnswered();
      if (!cancelled) {
        readController.close();
      }
    },
    cancel(reason) {
      cancelled = true;
      ledger.stopWaiting();
      return source?.cancel(reason);
    },
  });
  const writable = recordedWritable(stream.writable, ledger, (message) => {
    if (ended && isRequest(message)) {
      answerFor(message.id);
    }
  });
  return { readable, writable };
}

/**
 * `output`, each message written recorded in `ledger`, then passed to `afterWrite`. One writer of
 * `output` serves every message (this stream hands on one message at a time, in order): a writer
 * taken and released per message cost, at each release, the `TypeError` its `closed` promise is
 * rejected with (WHATWG Streams, WritableStreamDefaultWriterRelease), stack and all, and a
 * notification is written per streamed delta (issue 26, figure 4e: bench/notes/server34.md).
 */
function recordedWritable(
  output: WritableStream<acp.AnyMessage>,
  ledger: AnswerLedger,
  afterWrite: (message: acp.AnyMessage) => void,
): WritableStream<acp.AnyMessage> {
  let writer: WritableStreamDefaultWriter<acp.AnyMessage> | undefined;
  const held = () => {
    writer ??= output.getWriter();
    return writer;
  };
  return new WritableStream<acp.AnyMessage>({
    async write(message) {
      try {
        await held().write(message);
      } finally {
        ledger.written(message);
      }
      afterWrite(message);
    },
    close: () => held().close(),
    abort: (reason) => held().abort(reason),
  });
}

/** The requests read and not yet answered, and ours the client has not answered. */
class AnswerLedger {
  /** By id, how many are open (a client may reuse an id). */
  private readonly unanswered = new Map<RequestId, number>();
  private readonly asked = new Set<RequestId>();
  private waiting: (() => void) | undefined;

  /** A message read from the client. */
  read(message: unknown): void {
    if (isRequest(message)) {
      this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    } else if (isAnswer(message)) {
      this.asked.delete(message.id);
    }
  }

  /** A message written to the client. */
  written(message: unknown): void {
    if (isRequest(message)) {
      this.asked.add(message.id);
      return;
    }
    if (!isAnswer(message)) {
      return;
    }
    const open = this.unanswered.get(message.id) ?? 0;
    if (open > 1) {
      this.unanswered.set(message.id, open - 1);
    } else {
      this.unanswered.delete(message.id);
    }
    if (this.unanswered.size === 0) {
      this.stopWaiting();
    }
  }

  /** Our unanswered requests, forgotten here (their answers are made up by the caller). */
  takeAsked(): RequestId[] {
    const ids = [...this.asked];
    this.asked.clear();
    return ids;
  }

  /** Resolves once every request read has been answered (or {@link stopWaiting}). */
  allAnswered(): Promise<void> {
    if (this.unanswered.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  stopWaiting(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}

function noAnswer(id: RequestId): acp.AnyMessage {
  const message = "the client's input ended before it answered";
  return { jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message } } as acp.AnyMessage;
}

interface Identified {
  id: RequestId;
}

/** A request as the SDK takes one: `jsonrpc` "2.0", a string `method` and a valid `id`. */
function isRequest(message: unknown): message is Identified {
  return isEnvelope(message) && typeof message.method === "string" && hasId(message);
}

/** An answer: no `method`, a valid `id`. */
function isAnswer(message: unknown): message is Identified {
  return isEnvelope(message) && !("method" in message) && hasId(message);
}

function isEnvelope(message: unknown): message is Record<string, unknown> {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as Record<string, unknown>).jsonrpc === "2.0"
  );
}

function hasId(message: Record<string, unknown>): boolean {
  const { id } = message;
  return (
    "id" in message &&
    (id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))
  );
}
