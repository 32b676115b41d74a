/**
 * Bodies that are JSON but no JSON-RPC message, held back before vscode-jsonrpc: it would log
 * each as "Received message which is neither a response nor a notification message" over several
 * lines and answer nothing, so a client that sent a batch would wait forever. JSON-RPC 2.0 §5 and
 * §6 answer them with an error, id null: `-32600` Invalid Request. A batch (a JSON array, §6) is
 * one of them: turnloop serves one message per frame, as the Copilot SDK sends them.
 */

import type { DataCallback, Message, MessageReader } from "vscode-jsonrpc/node.js";
import { requestIdProblem, usableRequestId } from "../session/message-head.js";

/**
 * `reader` with the bodies that are no JSON-RPC message given to `refuse` (with what is wrong,
 * for the answer and the stderr line, and the id to answer with: null when the message has no
 * usable one) instead of the connection; the others pass in order.
 */
export function refusingInvalidMessages(
  reader: MessageReader,
  refuse: (problem: string, id: string | number | null) => void,
): MessageReader {
  return {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    listen: (callback: DataCallback) =>
      reader.listen((message) => {
        const problem = messageProblem(message as unknown);
        if (problem === undefined) {
          callback(message);
        } else {
          refuse(problem, answerId(message as unknown));
        }
      }),
    dispose: () => reader.dispose(),
  };
}

/**
 * The id to answer a refused message with: a request's own when usable, else null (JSON-RPC 2.0
 * §5). Not an answer's: that of a client's malformed answer names one of our requests.
 */
function answerId(body: unknown): string | number | null {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("method" in body)) {
    return null;
  }
  const { id } = body as { id?: unknown };
  return usableRequestId(id) ? id : null;
}

/**
 * What keeps `body` from being a request, a notification or a response as vscode-jsonrpc tells
 * them apart (`method` a string with a usable `id` or none; else a `result` or `error` with an
 * `id`); undefined for a message.
 */
function messageProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) {
    return "a batch (a JSON array of messages) is not supported: send each message in its own frame";
  }
  if (typeof body !== "object" || body === null) {
    return `a JSON ${body === null ? "null" : typeof body} is not a JSON-RPC message`;
  }
  const { method, id } = body as Partial<Message> & { method?: unknown; id?: unknown };
  if (typeof method === "string") {
    return id === undefined || usableRequestId(id) ? undefined : requestIdProblem(id);
  }
  if (method !== undefined) {
    return `a method must be a string, not ${JSON.stringify(method)}`;
  }
  const answer = "result" in body || "error" in body;
  const idOk = id === undefined || id === null || typeof id === "string" || typeof id === "number";
  return answer && idOk ? undefined : "a message with neither a method nor a result or error";
}
