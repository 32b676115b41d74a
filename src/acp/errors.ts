import * as acp from "@agentclientprotocol/sdk";
import type { ErrorType } from "../events/events.js";
import { pathText } from "../protocol/plain-problems.js";
import type { FieldPath } from "./invalid-params.js";
import type { FollowedEnd } from "./remote-prompt.js";

/** Longest error message sent to the client, in characters. */
const MAX_MESSAGE_LENGTH = 1_000;

/** JSON-RPC codes we use besides the SDK's helpers. */
export const ERROR_CODES = {
  invalidRequest: -32600,
  invalidParams: -32602,
  internal: -32603,
  authRequired: -32000,
  methodNotFound: -32601,
} as const;

/**
 * ACP's `-32002` (Resource not found, `data.sessionId`: the SDK's `RequestError.sessionNotFound`)
 * with a message that says what to do: the SDK's own is only "Resource not found".
 * @param kind `"not open"`: a session-scoped request (`session/prompt`, `session/set_mode`, …) for a
 * session not open on this connection (never opened, closed, or deleted); `"no log"`: one to open
 * (`session/load`, `session/resume`) that names no session in the store.
 */
export function sessionNotFound(sessionId: string, kind: "not open" | "no log"): acp.RequestError {
  const message =
    kind === "not open"
      ? `Session ${sessionId} is not open on this connection: open it with session/load or session/resume first (a closed session is no longer open; a deleted one is gone)`
      : `Session ${sessionId} does not exist here (it was deleted, or never made): session/list lists the sessions`;
  return new acp.RequestError(acp.RequestError.sessionNotFound(sessionId).code, message, {
    sessionId,
  });
}

/**
 * ACP's `-32002` (Resource not found, `data.sessionId`: /work/shared/reference/acp.md §1.12) for
 * a request on a session this connection followed on another worker (issue 22) that was deleted
 * meanwhile, by an app of any worker: ACP v1 has no deletion notice, so its next request says it.
 */
export function sessionDeleted(sessionId: string): acp.RequestError {
  const message = `Session ${sessionId} was deleted by another worker or app while followed here: it is gone (session/list lists the sessions that remain)`;
  return new acp.RequestError(acp.RequestError.sessionNotFound(sessionId).code, message, {
    sessionId,
  });
}

/**
 * The JSON-RPC error that answers a prompt that failed (case 17): ACP has no error stop reason,
 * so a failure is an error, never an empty `end_turn`. An authentication failure is ACP's
 * auth-required `-32000`; anything else is `-32603` with the failure's message (already bounded
 * and redacted below): a store that could not be written (`storage`) says so, "The session could
 * not be stored: <database or file> could not be written (<error>): …"; any other is the model
 * request's, e.g. "The model request failed: HTTP 500: boom". A prompt refused before it was
 * stored or sent, beyond the model's context window (`tooLarge`), is `-32602`, as a blank one is
 * ("session/prompt: the prompt is about N tokens … nothing was sent. …", the message edge naming
 * the method), with both sizes in `data`; the editor keeps its text, and no turn is claimed.
 */
export function promptFailure(
  failure: { errorType: ErrorType; message: string; statusCode?: number },
  tooLarge?: { estimatedTokens: number; contextWindow: number },
): acp.RequestError {
  const data = {
    errorType: failure.errorType,
    ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
  };
  if (tooLarge !== undefined) {
    const message = bounded(failure.message);
    return new acp.RequestError(ERROR_CODES.invalidParams, message, { ...data, ...tooLarge });
  }
  if (failure.errorType === "authentication") {
    return new acp.RequestError(
      ERROR_CODES.authRequired,
      bounded(`The model provider refused the credentials: ${failure.message}`),
      data,
    );
  }
  const what =
    failure.errorType === "storage"
      ? "The session could not be stored"
      : "The model request failed";
  return new acp.RequestError(ERROR_CODES.internal, bounded(`${what}: ${failure.message}`), data);
}

/**
 * `-32602` naming the field and what was expected there (`cwd: expected an absolute path, not
 * "project"`), with `data` `{...data, problems: [{path, message}]}`; the message edge puts the
 * request's method before it (`session/new: cwd: …`, src/acp/invalid-params.ts), as it does for
 * the SDK's own `-32602`. The SDK's own message would say only "Invalid params".
 * @param path the field, from the params down (`["mcpServers", 0, "name"]`).
 * @param message what was expected there, and why the value given is not that.
 */
export function invalidParams(
  path: FieldPath,
  message: string,
  data: Record<string, unknown> = {},
): acp.RequestError {
  return new acp.RequestError(ERROR_CODES.invalidParams, bounded(`${pathText(path)}: ${message}`), {
    ...data,
    problems: [{ path, message }],
  });
}

/** `-32600` for a request that is valid but cannot be served now (e.g. a prompt is running). */
export function invalidRequest(message: string, data?: unknown): acp.RequestError {
  return new acp.RequestError(ERROR_CODES.invalidRequest, bounded(message), data);
}

/**
 * `-32601` for a request no handler takes, with `data` `{method}`: `Method not found: nope`. The
 * SDK's own answer reads `"Method not found": nope`, quotes and all (a fresh user's trial, #10).
 */
export function methodNotFound(method: string): acp.RequestError {
  return new acp.RequestError(ERROR_CODES.methodNotFound, bounded(`Method not found: ${method}`), {
    method,
  });
}

/** `-32603` carrying our message as is (configuration problems, I/O failures). */
export function internalError(message: string): acp.RequestError {
  return new acp.RequestError(ERROR_CODES.internal, bounded(message));
}

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/**
 * The `session/prompt` answer of a follower's prompt that ended so (remote-session.ts `prompt`).
 * @throws its failure: `-32002` when the session was deleted (`sessionDeleted`); `-32603` when
 * the owner was gone or refused it unstored, or its process ended while it ran (`stored: false`);
 * `-32602` naming both sizes when it refused it beyond the window; else (its store refused the
 * prompt's events, or it failed as stored) as a local prompt's (`promptFailure`).
 */
export function followedAnswer(end: FollowedEnd): acp.PromptResponse {
  if ("deletedSession" in end) {
    throw sessionDeleted(end.deletedSession);
  }
  if ("ownerGone" in end) {
    throw internalError(end.ownerGone);
  }
  if ("refused" in end) {
    const { error, promptTooLarge } = end.refused;
    throw promptTooLarge === undefined && error.errorType !== "storage"
      ? internalError(error.message)
      : promptFailure(error, promptTooLarge);
  }
  if ("stored" in end) {
    // Its process ended while it ran: no model request failed (prompt-end.ts PROMPT_INTERRUPTED).
    throw internalError(end.error.message);
  }
  if ("error" in end) {
    throw promptFailure(end.error);
  }
  return { stopReason: end.stopReason };
}
