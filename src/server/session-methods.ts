/**
 * `session.*` methods (Copilot protocol v3 names and shapes; see protocol.ts for the params).
 * Session-scoped methods act on sessions open in this server process; `session.getMessages`
 * also reads sessions that are not open.
 */

import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { ResponseError } from "vscode-jsonrpc";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import type { Session } from "../session/session.js";
import { SessionLockedError } from "../session/session-store.js";
import { builtinTools } from "../tools/index.js";
import { parseServers } from "../tools/mcp/config.js";
import { broadcast, type ClientConnection, type ServerContext } from "./connection.js";
import {
  type CreateParams,
  createParams,
  historyCompactParams,
  invalidParams,
  modelSwitchParams,
  modeSetParams,
  parseParams,
  permissionAnswerParams,
  resumeParams,
  sendParams,
  sessionOnlyParams,
  toolAnswerParams,
} from "./params.js";
import { ErrorCode, type SessionCreateResult } from "./protocol.js";
import { chooseModel } from "./server-model.js";
import { ServerSession, type SessionConfig } from "./server-session.js";

const BUILT_IN_NAMES = new Set([...builtinTools().map((tool) => tool.name), "task_complete"]);

/** `session.create` → {@link SessionCreateResult}. */
export async function createMethod(
  connection: ClientConnection,
  raw: unknown,
): Promise<SessionCreateResult> {
  const { server } = connection;
  const params = parseParams("session.create", createParams, raw);
  const choice = chooseModel(params, server.host);
  if (!choice.ok) {
    throw invalidParams(`session.create: ${choice.message}`);
  }
  checkTools(params);
  const cwd = await workingDirectory(server, params.workingDirectory);
  if (params.sessionId !== undefined && server.sessions.has(params.sessionId)) {
    throw invalidParams(`session.create: session ${params.sessionId} is already open`);
  }
  let session: Session;
  try {
    const { sessionId } = params;
    session = await server.host.create(
      cwd,
      choice.configuration.id,
      sessionId === undefined ? {} : { sessionId },
    );
  } catch (error) {
    throw invalidParams(`session.create: ${errorMessage(error)}`);
  }
  await startMcp(server, session, params.mcpServers);
  const mode = params.mode ?? server.defaultMode;
  const start = { model: choice.configuration, mode, source: "new" as const };
  const serverSession = open(server, session, start);
  serverSession.attach(connection, configOf(params));
  // Copilot sends `session.start` live, before the answer (the SDK's `onEvent` sees it).
  for (const event of session.openingEvents) {
    connection.notify("session.event", { sessionId: session.id, event });
  }
  serverSession.choices.byok = params.provider !== undefined;
  if (params.reasoningEffort !== undefined) {
    serverSession.switchModel(choice.configuration, params.reasoningEffort);
  }
  broadcast(server, "session.lifecycle", {
    type: "session.created",
    sessionId: session.id,
    metadata: { startTime: session.start.startTime, modifiedTime: session.start.startTime },
  });
  return serverSession.describe();
}

/**
 * `session.resume`: reopens a session from its log (or takes over one already open in this
 * process, or being reopened by another request) with the app's new registrations. Past events
 * are not re-sent; read them with `session.getMessages`. A session open in another process (its
 * lock, see session-lock.ts) is `-32602` naming that process.
 */
export async function resumeMethod(
  connection: ClientConnection,
  raw: unknown,
): Promise<SessionCreateResult> {
  const { server } = connection;
  const params = parseParams("session.resume", resumeParams, raw);
  checkTools(params);
  let serverSession = await openOrOpening(server, params.sessionId);
  if (serverSession === undefined) {
    const opening = reopen(server, params);
    server.opening.set(params.sessionId, opening);
    try {
      serverSession = await opening;
    } finally {
      if (server.opening.get(params.sessionId) === opening) {
        server.opening.delete(params.sessionId);
      }
    }
    announceRepair(connection, serverSession.session);
  } else if (params.model !== undefined || params.provider !== undefined) {
    const choice = chooseModel(params, server.host, undefined);
    if (!choice.ok) {
      throw invalidParams(`session.resume: ${choice.message}`);
    }
    serverSession.switchModel(choice.configuration, params.reasoningEffort);
    serverSession.choices.byok = params.provider !== undefined;
  } else if (params.reasoningEffort !== undefined) {
    serverSession.switchModel(serverSession.choices.model, params.reasoningEffort);
  }
  serverSession.attach(connection, configOf(params));
  server.detached.delete(params.sessionId);
  return serverSession.describe();
}

/**
 * The session `sessionId` when it is open here (after any reopen in flight, and never one that
 * is closing: that one is waited for).
 */
async function openOrOpening(
  server: ServerContext,
  sessionId: string,
): Promise<ServerSession | undefined> {
  await server.opening.get(sessionId)?.catch(() => undefined);
  const open = server.sessions.get(sessionId);
  if (open?.closing) {
    await open.close();
    return openOrOpening(server, sessionId);
  }
  return open;
}

async function reopen(
  server: ServerContext,
  params: ReturnType<typeof resumeParams.parse>,
): Promise<ServerSession> {
  let session: Session;
  try {
    session = await server.host.resume(params.sessionId);
  } catch (error) {
    if (error instanceof SessionLockedError) {
      throw invalidParams(`session.resume: ${error.message}`);
    }
    throw invalidParams(
      `session.resume: no session ${params.sessionId} can be resumed (${errorMessage(error)})`,
    );
  }
  const recorded = session.start.model;
  const choice = chooseModel(
    { model: params.model ?? recorded, provider: params.provider },
    server.host,
    recorded.slice(recorded.indexOf(":") + 1),
  );
  if (!choice.ok) {
    await server.host.close(session);
    throw invalidParams(`session.resume: ${choice.message}`);
  }
  await startMcp(server, session, params.mcpServers);
  const mode = params.mode ?? server.defaultMode;
  const reopened = open(server, session, {
    model: { ...choice.configuration, id: recorded },
    mode,
    source: "resume",
  });
  // Records `session.model_change` when the app resumes with another model (or effort).
  reopened.switchModel(choice.configuration, params.reasoningEffort);
  reopened.choices.byok = params.provider !== undefined;
  return reopened;
}

/**
 * Starts a new or reopened session's MCP servers: the app's `mcpServers` (Copilot SDK shape)
 * over the config files'. They start in the background; problems go to stderr.
 */
async function startMcp(
  server: ServerContext,
  session: Session,
  mcpServers: Record<string, unknown> | undefined,
): Promise<void> {
  const given = parseServers(mcpServers, "session mcpServers");
  for (const problem of given.problems) {
    server.log(`MCP server not started: ${problem}`);
  }
  await server.host.startMcpServers(session, given.servers, (line) =>
    server.log(line.replace(/^turnloop: /, "")),
  );
}

export function sendMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("session.send", sendParams, raw);
  const session = openSession(connection.server, params.sessionId);
  return { messageId: session.send(params) };
}

export async function abortMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.abort", sessionOnlyParams, raw);
  await openSession(connection.server, sessionId).abort();
  return { success: true };
}

/**
 * `session.getMessages` / `session.getEvents`: the persisted events, as on disk. As with Copilot,
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
    return { events };
  } catch (error) {
    if (isMissingFileError(error)) {
      throw invalidParams(`session.getMessages: no session ${sessionId}`);
    }
    throw new ResponseError(
      ErrorCode.internalError,
      `session.getMessages: the log of session ${sessionId} cannot be read (${errorMessage(error)})`,
    );
  }
}

/** `session.detach` / `session.destroy`: ends the app's use; the log stays for resume. */
export async function detachMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.detach", sessionOnlyParams, raw);
  const session = connection.server.sessions.get(sessionId);
  if (session !== undefined) {
    connection.server.detached.add(sessionId);
    await session.detach();
  }
  return { success: true };
}

/** `session.delete`: closes the session if open, then removes its folder. */
export async function deleteMethod(connection: ClientConnection, raw: unknown) {
  const { server } = connection;
  const { sessionId } = parseParams("session.delete", sessionOnlyParams, raw);
  await server.sessions.get(sessionId)?.close();
  let deleted: boolean;
  try {
    deleted = await server.host.delete(sessionId);
  } catch (error) {
    return { success: false, error: errorMessage(error) };
  }
  if (!deleted) {
    return { success: false, error: `no session ${sessionId}` };
  }
  broadcast(server, "session.lifecycle", { type: "session.deleted", sessionId });
  return { success: true };
}

export function modeGetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.mode.get", sessionOnlyParams, raw);
  return openSession(connection.server, sessionId).mode;
}

/** `session.mode.set`: applies from the next prompt on; records `session.mode_changed`. */
export function modeSetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId, mode } = parseParams("session.mode.set", modeSetParams, raw);
  const session = openSession(connection.server, sessionId);
  const status = session.mode === mode ? "unchanged" : "changed";
  session.setMode(mode);
  return { status, modelChanged: false, modeApplied: true };
}

export function modelGetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.model.getCurrent", sessionOnlyParams, raw);
  const session = openSession(connection.server, sessionId);
  const effort = session.choices.reasoningEffort;
  return { modelId: session.modelId, ...(effort === undefined ? {} : { reasoningEffort: effort }) };
}

/**
 * `session.model.switchTo {modelId, reasoningEffort?}`: a `<provider>:<model>` id, a `models.list`
 * id, or a bare name resolved against the configured providers (or the session's BYOK provider);
 * applies from the next prompt and records `session.model_change`.
 */
export function modelSwitchMethod(connection: ClientConnection, raw: unknown) {
  const { server } = connection;
  const params = parseParams("session.model.switchTo", modelSwitchParams, raw);
  const session = openSession(server, params.sessionId);
  const choice = session.choices.byok
    ? { ok: true as const, configuration: session.choices.withModelName(params.modelId) }
    : chooseModel({ model: params.modelId }, server.host);
  if (!choice.ok) {
    throw invalidParams(`session.model.switchTo: ${choice.message}`);
  }
  session.switchModel(choice.configuration, params.reasoningEffort);
  return { modelId: choice.configuration.id };
}

/**
 * `session.history.compact {sessionId, customInstructions?}` (Copilot's method): compacts the
 * history now. Answers Copilot's result shape `{success, tokensRemoved, messagesRemoved,
 * summaryContent?}`; a compaction that fails or would remove nothing answers `success: false`
 * with `error`.
 * @throws invalid params when a prompt is running.
 */
export async function historyCompactMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.history.compact";
  const params = parseParams(method, historyCompactParams, raw);
  const session = openSession(connection.server, params.sessionId);
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
  return { success: session.answerTool(params.requestId, answer) };
}

/** `session.permissions.handlePendingPermissionRequest`: `success: false` when nothing waits. */
export function permissionAnswerMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.permissions.handlePendingPermissionRequest";
  const params = parseParams(method, permissionAnswerParams, raw);
  const session = openSession(connection.server, params.sessionId);
  try {
    return { success: session.answerPermission(params.requestId, params.result) };
  } catch (error) {
    throw invalidParams(`${method}: ${errorMessage(error)}`);
  }
}

/** Options the app may change without an effect here; accepted so Copilot apps start. */
export function acceptedMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session method", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  return { success: true };
}

/** @throws ResponseError `-32602` "Session not found" (Copilot's words) unless it is open here. */
export function openSession(server: ServerContext, sessionId: string): ServerSession {
  const session = server.sessions.get(sessionId);
  if (session === undefined || session.closing) {
    throw invalidParams(
      `Session not found: ${sessionId} (it is not open in this server: create or resume it)`,
    );
  }
  return session;
}

/**
 * When opening repaired the log, sends its `session.resume` event (with `notice`) to the client
 * once, after the `session.resume` answer so the app's session object exists to receive it (the
 * Copilot CLI too emits a new `session.resume` event on resume).
 */
function announceRepair(connection: ClientConnection, session: Session): void {
  const event = session.resumeEvent;
  if (event !== undefined && session.repairNotice !== undefined) {
    setImmediate(() => connection.notify("session.event", { sessionId: session.id, event }));
  }
}

function open(
  server: ServerContext,
  session: Session,
  start: ConstructorParameters<typeof ServerSession>[2],
): ServerSession {
  const onClosed = (closed: ServerSession) => {
    if (server.sessions.get(closed.id) === closed) {
      server.sessions.delete(closed.id);
    }
  };
  const serverSession = new ServerSession(session, server.host, start, onClosed, server.log);
  server.sessions.set(session.id, serverSession);
  return serverSession;
}

function configOf(params: CreateParams): SessionConfig {
  const { tools, systemMessage, requestPermission, hooks, streaming, allowAllTools } = params;
  const { availableTools, excludedTools, clientName } = params;
  return {
    ...{ tools, systemMessage, requestPermission, hooks, streaming, allowAllTools },
    ...{ availableTools, excludedTools, clientName },
  };
}

/** Names must be unique, and a built-in name needs `overridesBuiltInTool`. */
function checkTools(params: CreateParams): void {
  const seen = new Set<string>();
  for (const tool of params.tools ?? []) {
    if (seen.has(tool.name)) {
      throw invalidParams(`tool ${tool.name} is declared twice`);
    }
    seen.add(tool.name);
    if (BUILT_IN_NAMES.has(tool.name) && tool.overridesBuiltInTool !== true) {
      throw invalidParams(
        `tool ${tool.name} clashes with a built-in tool: rename it or set overridesBuiltInTool`,
      );
    }
  }
}

async function workingDirectory(server: ServerContext, requested: string | undefined) {
  const cwd = resolve(server.host.face.cwd, requested ?? ".");
  const info = await stat(cwd).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw invalidParams(`session.create: workingDirectory ${cwd} is not a directory`);
  }
  return cwd;
}
