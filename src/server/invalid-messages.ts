/**
 * Bodies that are JSON but no JSON-RPC message, held back before vscode-jsonrpc: it would log
 * each as "Received message which is neither a response nor a notification message" over several
 * lines and answer nothing, so a client that sent a batch would wait forever. JSON-RPC 2.0 §5 and
 * §6 answer them with an error, id null: `-32600` Invalid Request. A batch (a JSON array, §6) is
 * one of them: turnloop serves one message per frame, as the Copilot SDK sends them.
 */

import type { DataCallback, Message, MessageReader } from "vscode-jsonrpc/node.js";

/**
 * `reader` with the bodies that are no JSON-RPC message given to `refuse` (with what is wrong,
 * for the answer and the stderr line) instead of the connection; the others pass in order.
 */
export function refusingInvalidMessages(
  reader: MessageReader,
  refuse: (problem: string) => void,
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
          refuse(problem);
        }
      }),
    dispose: () => reader.dispose(),
  };
}

/**
 * What keeps `body` from being a request, a notification or a response as vscode-jsonrpc tells
 * them apart (`method` a string with a string or number `id` or none; else a `result` or `error`
 * with an `id`); undefined for a message.
 */
function messageProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) {
    return "a batch (a JSON array of messages) is not supported: send each message in its own frame";
  }
  if (typeof body !== "object" || body === null) {
    return `a JSON ${body === null ? "null" : typeof body} is not a JSON-RPC message`;
  }
  const { method, id } = body as Partial<Message> & { method?: unknown; id?: unknown };
  const idOk = id === undefined || typeof id === "string" || typeof id === "number";
  if (typeof method === "string") {
    return idOk ? undefined : "a request's id must be a string or a number";
  }
  const answer = "result" in body || "error" in body;
  return answer && (idOk || id === null)
    ? undefined
    : "a message with neither a method nor a result or error";
}
