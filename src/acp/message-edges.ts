import type * as acp from "@agentclientprotocol/sdk";
import { OpenRequests } from "./invalid-params.js";

/** JSON-RPC 2.0 §5.1: the request is not a valid Request object. */
const INVALID_REQUEST = -32600;

export interface MessageEdgeOptions {
  /** Told about every message answered here. */
  log?: (line: string) => void;
  /**
   * Called when the client answers with an error that carries no id (`id` null or absent): the
   * only way a client can refuse a notification on the wire.
   */
  onIdlessError?: (error: unknown) => void;
  /**
   * Called with its `sessionId` when a `session/cancel` is read, before the SDK hands it to its
   * handler (after the requests read with it: acp/agent.ts).
   */
  onCancelRead?: (sessionId: string) => void;
  /**
   * Every request read is noted here, and every answer written through this stream's writable
   * is said through it (a `-32602` in words: invalid-params.ts); give the same one to a writer
   * that replaces this writable (message-writer.ts). Default: one of this stream's own.
   */
  requests?: OpenRequests;
}

/**
 * JSON-RPC 2.0 edges the SDK's connection layer leaves unanswered or answers without the id:
 * - a request (`method` and a valid `id`) whose `jsonrpc` is not `"2.0"` gets `-32600` with its
 *   id (the SDK answers with `id: null`, although the id was readable);
 * - a message with an `id` (null too) but neither `method`, `result` nor `error` gets `-32600`
 *   with its id (the SDK takes it for a response to nothing and drops it);
 * - a request whose `method` is not a string gets `-32600` with its id (the SDK: `id: null`);
 * - an error answer without an id is passed on and reported to `onIdlessError`;
 * - a `session/cancel` is passed on and reported to `onCancelRead` as it is read;
 * - every request read is noted in `requests`, and every `-32602` the connection answers through
 *   this writable is said in words (invalid-params.ts).
 * Everything else goes through untouched. The answers are written in line with the SDK's own
 * messages (one outgoing queue), whatever the connection's state, `initialize` included.
 */
export function withMessageEdges(stream: acp.Stream, options: MessageEdgeOptions = {}): acp.Stream {
  let answer: (message: acp.AnyMessage) => void = () => {};
  const requests = options.requests ?? new OpenRequests();
  const outgoing = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      controller.enqueue(requests.answer(message));
    },
    start(controller) {
      answer = (message) => {
        try {
          controller.enqueue(message);
        } catch {
          // The connection has closed: nobody is left to answer.
        }
      };
    },
  });
  outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  const incoming = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const problem = invalidMessage(message);
      if (problem === undefined) {
        requests.read(message);
        if (isIdlessError(message)) {
          options.onIdlessError?.((message as { error?: unknown }).error);
        }
        const cancelled = cancelledSession(message);
        if (cancelled !== undefined) {
          options.onCancelRead?.(cancelled);
        }
        controller.enqueue(message);
        return;
      }
      options.log?.(`turnloop: answered request ${JSON.stringify(problem.id)}: ${problem.reason}`);
      answer({
        jsonrpc: "2.0",
        id: problem.id,
        error: { code: INVALID_REQUEST, message: `Invalid request: ${problem.reason}` },
      });
    },
  });
  return { writable: outgoing.writable, readable: stream.readable.pipeThrough(incoming) };
}

type RequestId = string | number;

const ID_ONLY = 'a message with an "id" needs a "method" (a request) or a "result" or "error"';

function invalidMessage(message: unknown): { id: RequestId | null; reason: string } | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return undefined;
  }
  const record = message as Record<string, unknown>;
  const id = record.id;
  if (id === null && Object.keys(record).every((key) => key === "id" || key === "jsonrpc")) {
    // Only an id, and that null: the SDK would take it for a response and drop it.
    return { id, reason: ID_ONLY };
  }
  // Other messages without a usable id are the SDK's to answer, with id null.
  if (!isRequestId(id)) {
    return undefined;
  }
  if ("method" in record && typeof record.method !== "string") {
    return { id, reason: '"method" must be a string' };
  }
  if (typeof record.method === "string" && record.jsonrpc !== "2.0") {
    const version = JSON.stringify(record.jsonrpc ?? null);
    return { id, reason: `"jsonrpc" must be "2.0", not ${version}` };
  }
  if (!("method" in record) && !("result" in record) && !("error" in record)) {
    return { id, reason: ID_ONLY };
  }
  return undefined;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** The `sessionId` of a `session/cancel` notification, or undefined for any other message. */
function cancelledSession(message: unknown): string | undefined {
  const record = typeof message === "object" && message !== null ? message : {};
  const { method, id, params } = record as { method?: unknown; id?: unknown; params?: unknown };
  const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
  return method === "session/cancel" && id === undefined && typeof sessionId === "string"
    ? sessionId
    : undefined;
}

function isIdlessError(message: unknown): boolean {
  if (typeof message !== "object" || message === null) {
    return false;
  }
  const record = message as Record<string, unknown>;
  return (
    !("method" in record) && "error" in record && (record.id === undefined || record.id === null)
  );
}
