/**
 * The SDK's requests to its server, and the one error every request gets once the connection has
 * ended (README, "In an app": "the turnloop server connection closed before answering <method>"),
 * whether it was waiting for its answer or made after the end.
 */

import {
  ConnectionError,
  ErrorCodes,
  type MessageConnection,
  ResponseError,
} from "vscode-jsonrpc/node.js";

/**
 * Whether `error` is vscode-jsonrpc's word that the connection ended: a request left unanswered
 * when it was disposed (`PendingResponseRejected`), or one made after it closed or was disposed
 * (`ConnectionError`, "Connection is disposed.").
 */
export function connectionEnded(error: unknown): boolean {
  return (
    (error instanceof ResponseError && error.code === ErrorCodes.PendingResponseRejected) ||
    error instanceof ConnectionError
  );
}

/** The error of a request `method` the server will never answer: the connection ended. */
export function closedBeforeAnswering(method: string): Error {
  return new Error(`the turnloop server connection closed before answering ${method}`);
}

/**
 * Sends request `method` with `params`.
 * @returns the server's result.
 * @throws the server's refusal as vscode-jsonrpc's ResponseError (its code and message);
 * {@link closedBeforeAnswering} when the connection ended before the answer, or before the call.
 */
export async function sendRequest(
  connection: MessageConnection,
  method: string,
  params: object,
): Promise<unknown> {
  try {
    return await connection.sendRequest(method, params);
  } catch (error) {
    throw connectionEnded(error) ? closedBeforeAnswering(method) : error;
  }
}
