/**
 * `session.*` methods on open sessions (Copilot protocol v3 names and shapes; see
 * `src/protocol/copilot.ts`); `session.create` and `session.resume` are in session-opening.ts.
 * Session-scoped methods act on sessions open in this server process; `session.getMessages`
 * also reads sessions that are not open.
 */

import { ResponseError } from "vscode-jsonrpc";
import { z } from "zod";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import { ErrorCode, ServerToClient } from "../protocol/copilot.js";
import { shownValue } from "../protocol/plain-problems.js";
import { isEmptyPrompt } from "../session/prompt-attachments.js";
import { conversationEvents } from "../session/rewind.js";
import { broadcast, type ClientConnection, type ServerContext } from "./connection.js";
import {
  deletedWords,
  historyCompactParams,
  invalidParams,
  modelSwitchParams,
  modeSetParams,
  parseParams,
  permissionAnswerParams,
  sendParams,
  sessionDeleted,
  sessionIdSchema,
  sessionOnlyParams,
  toolAnswerParams,
} from "./params.js";
import {
  abortAtOwner,
  answerAtOwner,
  foundDeleted,
  isRemote,
  sendToOwner,
  stopFollowing,
} from "./remote-sessions.js";
import { chooseModel, listedModels } from "./server-model.js";
import type { ServerSession } from "./server-session.js";
import { resumeMethod } from "./session-opening.js";
import { bareModelId, historyOnWire } from "./wire-events.js";

/**
 * `session.send {sessionId, prompt, attachments?, mode?, agentMode?}` → `{messageId}` at once;
 * the prompt runs after those queued before it (`immediate`: ahead of them). A session another
 * worker holds gets it through that worker's inbox.
 * @throws `-32602` for bad params, an empty prompt (blank text and no attachments, refused before
 * anything is stored: session/prompt-attachments.ts `isEmptyPrompt`) or a session that is not
 * open here.
 */
export function sendMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("session.send", sendParams, raw);
  if (isEmptyPrompt(params.prompt, params.attachments?.length ?? 0)) {
    throw invalidParams(
      `session.send: prompt must hold some text (or come with attachments), not ${shownValue(params.prompt)}`,
    );
  }
  if (isRemote(connection, params.sessionId)) {
    return sendToOwner(connection, params, (resume) => resumeMethod(connection, resume));
  }
  const session = openSession(connection.server, params.sessionId);
  return { messageId: session.send(params) };
}

/**
 * `session.abort {sessionId}` → `{success: true}` once the running prompt is cancelled and the
 * queued ones dropped (at the owner, for a session another worker holds). @throws `-32602` for a
 * session that is not open here.
 */
export async function abortMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.abort", sessionOnlyParams, raw);
  if (isRemote(connection, sessionId)) {
    await abortAtOwner(connection, sessionId);
    return { success: true };
  }
  await openSession(connection.server, sessionId).abort();
  return { success: true };
}

/**
 * `session.suspend {sessionId}` → `{}` once the session is at rest: as `session.abort`, the
 * running prompt ends at its next safe point (a pending permission question is answered
 * cancelled, a call waiting for the app's tool gets an interrupted result, queued prompts are
 * dropped) and the log is committed; the session stays open for more prompts, and a resume in
 * any process goes on from the log. turnloop carries no half-run tool call over to a resume.
 */
export async function suspendMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.suspend", sessionOnlyParams, raw);
  if (isRemote(connection, sessionId)) {
    await abortAtOwner(connection, sessionId);
    return {};
  }
  await openSession(connection.server, sessionId).abort("session.suspend");
  return {};
}

/**
 * `session.getMessages` / `session.getEvents`: the persisted events, as on disk but with the SDK
 * face's model names (see wire-events.ts). As with Copilot,
 * a session the app detached here cannot be read until resumed ("Session not found").
 * @throws invalidParams for a session that does not exist or was detached; internalError naming
 * the cause when the log exists but cannot be read (permissions, I/O).
 */
export async function getMessagesMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.getMessages", sessionOnlyParams, raw);
  if (connection.server.detached.has(sessionId)) {
    throw invalidParams(`Session not found: ${sessionId} (it was disconnected: resume it first)`);
  }
  try {
    const { events } = await connection.server.host.readEvents(sessionId);
    // After a rewind, what is left of the conversation (session/rewind.ts).
    return { events: historyOnWire(conversationEvents(events)) };
  } catch (error) {
    if (isMissingFileError(error)) {
      throw (await foundDeleted(connection, sessionId))
        ? sessionDeleted(sessionId)
        : invalidParams(`session.getMessages: no session ${sessionId}`);
    }
    throw new ResponseError(
      ErrorCode.internalError,
      `session.getMessages: the log of session ${sessionId} cannot be read (${errorMessage(error)})`,
    );
  }
}

/**
 * `session.detach` / `session.destroy`: ends the app's use; the log stays for resume. While another
 * app is attached (see session-clients.ts) only this app and its tools go. An app following a
 * session another worker holds stops following it (the store subscription ends with the last).
 */
export async function detachMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.detach", sessionOnlyParams, raw);
  await stopFollowing(connection, sessionId);
  const session = connection.server.sessions.get(sessionId);
  if (session !== undefined) {
    // Another app still attached keeps the session open and readable.
    if (!session.othersAttachedThan(connection)) {
      connection.server.detached.add(sessionId);
    }
    await session.detach(connection);
  }
  return { success: true };
}

/**
 * `session.delete`: closes the session if open (a running prompt is cancelled "by the session
 * being deleted", by another app when the deleting one is not attached), then removes its folder.
 */
export async function deleteMethod(connection: ClientConnection, raw: unknown) {
  const { server } = connection;
  const { sessionId } = parseParams("session.delete", sessionOnlyParams, raw);
  const open = server.sessions.get(sessionId);
  await open?.close(
    undefined,
    open.serves(connection)
      ? "the session being deleted (session.delete)"
      : "the session being deleted by another app (session.delete)",
  );
  let deleted: boolean;
  try {
    deleted = await server.host.delete(sessionId);
  } catch (error) {
    return { success: false, error: errorMessage(error) };
  }
  if (!deleted) {
    const known = server.deleted.has(sessionId);
    return { success: false, error: known ? deletedWords(sessionId) : `no session ${sessionId}` };
  }
  server.deleted.add(sessionId);
  server.detached.delete(sessionId);
  broadcast(server, ServerToClient.sessionLifecycle, { type: "session.deleted", sessionId });
  return { success: true };
}

/**
 * `session.mode.get {sessionId}` → the mode the next prompt runs in (`interactive`, `plan`, …).
 */
export function modeGetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.mode.get", sessionOnlyParams, raw);
  return openSession(connection.server, sessionId).mode;
}

/**
 * `session.mode.set`: applies from the next prompt on; a change records `session.mode_changed`
 * and is announced as the lifecycle event `session.updated`, as Copilot does.
 */
export function modeSetMethod(connection: ClientConnection, raw: unknown) {
  const { server } = connection;
  const { sessionId, mode } = parseParams("session.mode.set", modeSetParams, raw);
  const session = openSession(server, sessionId);
  const status = session.mode === mode ? "unchanged" : "changed";
  session.setMode(mode);
  if (status === "changed") {
    const metadata = {
      startTime: session.session.start.startTime,
      modifiedTime: new Date().toISOString(),
    };
    broadcast(server, ServerToClient.sessionLifecycle, {
      type: "session.updated",
      sessionId,
      metadata,
    });
  }
  return { status, modelChanged: false, modeApplied: true };
}

/**
 * `session.model.getCurrent {sessionId}` → `{modelId, reasoningEffort?}`: the model the next
 * prompt uses, its id without turnloop's provider prefix (`openai-chat:gpt-4.1` → `gpt-4.1`).
 */
export function modelGetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.model.getCurrent", sessionOnlyParams, raw);
  const session = openSession(connection.server, sessionId);
  const effort = session.choices.reasoningEffort;
  const modelId = bareModelId(session.modelId);
  return { modelId, ...(effort === undefined ? {} : { reasoningEffort: effort }) };
}

/**
 * `session.model.switchTo {modelId, reasoningEffort?}`: a `<provider>:<model>` id, a `models.list`
 * id, or a bare name on the provider of the session's model (host-models.ts `withProvider`; or the
 * session's BYOK provider);
 * applies from the next prompt and records `session.model_change`.
 */
export function modelSwitchMethod(connection: ClientConnection, raw: unknown) {
  const { server } = connection;
  const params = parseParams("session.model.switchTo", modelSwitchParams, raw);
  const session = openSession(server, params.sessionId);
  const choice = session.choices.byok
    ? { ok: true as const, configuration: session.choices.withModelName(params.modelId) }
    : chooseModel({ model: params.modelId }, server.host, undefined, session.modelId);
  if (!choice.ok) {
    throw invalidParams(`session.model.switchTo: ${choice.message}`);
  }
  session.switchModel(choice.configuration, params.reasoningEffort);
  return { modelId: bareModelId(choice.configuration.id) };
}

const effortParams = z.looseObject({
  sessionId: sessionIdSchema,
  reasoningEffort: z.string().min(1),
});

/**
 * `session.model.setReasoningEffort {reasoningEffort}` → `{reasoningEffort}`: the effort of the
 * next prompts on the same model; records `session.model_change` when it changes.
 * @throws ResponseError `-32602` while the model cannot run here (session-choices.ts
 *   `refuseUnrunnable`).
 */
export function effortSetMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("session.model.setReasoningEffort", effortParams, raw);
  const session = openSession(connection.server, params.sessionId);
  session.choices.refuseUnrunnable("session.model.setReasoningEffort", "Nothing was changed.");
  session.switchModel(session.choices.model, params.reasoningEffort);
  return { reasoningEffort: params.reasoningEffort };
}

/** `session.model.list` → `{list}` (Copilot's `SessionModelList`): the `models.list` entries. */
export function sessionModelsMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.model.list", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  return { list: listedModels(connection.server.host) };
}

/**
 * `session.history.compact {sessionId, customInstructions?}` (Copilot's method): compacts the
 * history now. Answers Copilot's result shape `{success, tokensRemoved, messagesRemoved,
 * summaryContent?}`; a compaction that fails or would remove nothing answers `success: false`
 * with `error`.
 * @throws invalid params when a prompt is running, or while the model cannot run here
 *   (session-choices.ts `refuseUnrunnable`).
 */
export async function historyCompactMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.history.compact";
  const params = parseParams(method, historyCompactParams, raw);
  const session = openSession(connection.server, params.sessionId);
  session.choices.refuseUnrunnable(method, "Nothing was compacted.");
  const instructions = params.customInstructions ?? params.instructions ?? "";
  try {
    const result = await session.compact(instructions);
    if (!result.ok) {
      return { success: false, tokensRemoved: 0, messagesRemoved: 0, error: result.message };
    }
    return {
      success: true,
      tokensRemoved: Math.max(0, result.preCompactionTokens - result.postCompactionTokens),
      messagesRemoved: result.messagesRemoved,
      summaryContent: result.summaryContent,
    };
  } catch (error) {
    throw invalidParams(`${method}: ${errorMessage(error)}`);
  }
}

/** `session.tools.handlePendingToolCall`: `success: false` when nothing waits for that id. */
export function toolAnswerMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.tools.handlePendingToolCall";
  const params = parseParams(method, toolAnswerParams, raw);
  const session = openSession(connection.server, params.sessionId);
  const answer = {
    ...(params.result === undefined ? {} : { result: params.result }),
    ...(params.error === undefined ? {} : { error: params.error }),
  };
  return { success: session.toolCalls.answer(params.requestId, answer) };
}

/** `session.permissions.handlePendingPermissionRequest`: `success: false` when nothing waits. */
export async function permissionAnswerMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.permissions.handlePendingPermissionRequest";
  const params = parseParams(method, permissionAnswerParams, raw);
  try {
    if (isRemote(connection, params.sessionId)) {
      // Sent to the worker that asked (issue 22).
      return { success: await answerAtOwner(connection.server, params) };
    }
    const session = openSession(connection.server, params.sessionId);
    return { success: session.answerPermission(params.requestId, params.result) };
  } catch (error) {
    if (error instanceof ResponseError) {
      throw error;
    }
    throw invalidParams(`${method}: ${errorMessage(error)}`);
  }
}

/** Options the app may change without an effect here; accepted so Copilot apps start. */
export function acceptedMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session method", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  return { success: true };
}

/**
 * @throws ResponseError `-32602` "Session not found" (Copilot's words) unless it is open here,
 * saying why: deleted (`session.delete`, by any app of this server), or not open here.
 */
export function openSession(server: ServerContext, sessionId: string): ServerSession {
  const session = server.sessions.get(sessionId);
  if (session === undefined || session.closing) {
    throw server.deleted.has(sessionId)
      ? sessionDeleted(sessionId)
      : invalidParams(
          `Session not found: ${sessionId} (it is not open in this server: create or resume it)`,
        );
  }
  return session;
}
