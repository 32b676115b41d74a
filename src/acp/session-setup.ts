import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { PromptOutcome } from "../agent/loop.js";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import type { ModelConfiguration } from "../llm/models.js";
import { ConfigError, SessionFolderGoneError } from "../session/config-paths.js";
import type { ModelResolution, SessionHost } from "../session/host.js";
import { InvalidSessionIdError } from "../session/paths.js";
import type { Session } from "../session/session.js";
import { elsewhereAdvice, folderElsewhereIn } from "../session/session-folder.js";
import { SessionLockedError } from "../session/session-store.js";
import { sessionTitle } from "../session/session-title.js";
import { StorageError, storeFailure } from "../session/storage-error.js";
import { modelUnavailable } from "./authentication.js";
import { editorServers } from "./editor-mcp-servers.js";
import { internalError, invalidParams, invalidRequest, sessionNotFound } from "./errors.js";
import type { ModeId } from "./modes.js";

/** A session's model: its id, and how to reach it once that resolves (its key may be missing). */
export interface AcpSessionModel {
  id: string;
  configuration?: ModelConfiguration;
}

/** How a session starts over ACP. */
export interface AcpSessionStart {
  session: Session;
  model: AcpSessionModel;
  mode: ModeId;
  /** The request's `additionalDirectories` (the run config adds `--add-dir`'s). */
  folders: readonly string[];
  /** Whether the log has a user prompt already (the title is known). */
  titled: boolean;
}

/** What `session/new`, `session/load` and `session/resume` check and open before a session runs. */

/** Sessions per `session/list` page. */
const LIST_PAGE_SIZE = 100;

/**
 * The model a session opens with. One whose key is missing still opens (its prompts answer
 * auth-required `-32000` until the key is there), so an editor can show the session and guide
 * the user; for a new session any other configuration problem fails the request. A reopened
 * session (`reopened`: its id and the model it ran with; `session/load`, `session/resume`, a
 * claim) needs no model to be opened (ACP v1 session-setup: the model answers prompts), so it
 * opens with the model it ran with, unresolved: a prompt answers with the problem
 * (acp-session.ts `configuration`) and `session/set_model` or the model option switches it.
 * @throws `-32603` with a new session's configuration problem (authentication.ts
 *   `modelUnavailable`); never for a reopened one.
 */
export function sessionModel(
  resolution: ModelResolution,
  reopened?: { sessionId: string; model: string },
): AcpSessionModel {
  if (resolution.ok) {
    return { id: resolution.configuration.id, configuration: resolution.configuration };
  }
  if (resolution.missingKey !== undefined) {
    return { id: resolution.missingKey.modelId };
  }
  if (reopened === undefined) {
    throw modelUnavailable(resolution);
  }
  return { id: reopened.model };
}

/**
 * ACP v1 session-setup: `cwd` MUST be an absolute path (`session/new`, `session/load`,
 * `session/resume`; the filter of `session/list` too).
 * @throws `-32602` naming the path, with `data` `{cwd}`.
 */
export function checkAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw invalidParams(["cwd"], `expected an absolute path, not ${JSON.stringify(cwd)}`, { cwd });
  }
}

export async function checkDirectory(cwd: string): Promise<void> {
  checkAbsolute(cwd);
  const stats = await stat(cwd).catch(() => undefined);
  if (!stats?.isDirectory()) {
    throw invalidParams(["cwd"], `expected an existing directory; ${cwd} is not one`, { cwd });
  }
}

/**
 * A session keeps its folder (ACP v1 session-setup: a session's `cwd` does not change; `-p
 * --resume --cwd` refuses the same way, session/session-folder.ts): `session/load` and
 * `session/resume` with a `cwd` naming another folder are refused before the session is opened,
 * judged from its log (`events`, read before opening it).
 * @throws `-32602` naming both folders, with `data` `{cwd, sessionCwd}`.
 */
export function checkSessionFolder(
  events: readonly SessionEvent[],
  sessionId: string,
  cwd: string,
): void {
  const folder = folderElsewhereIn(events, cwd);
  if (folder !== undefined) {
    const advice = elsewhereAdvice(sessionId, folder, { cwd, reopen: "open it with that cwd" });
    throw invalidParams(["cwd"], advice, { cwd, sessionCwd: folder });
  }
}

/**
 * `_meta` of a `session/load` or `session/resume` answer saying what opening the log repaired,
 * once (ACP v1: `_meta` carries extension data on any message).
 */
export function repairMeta(session: Session): { _meta?: { "turnloop/logRepaired": string } } {
  const notice = session.repairNotice;
  return notice === undefined ? {} : { _meta: { "turnloop/logRepaired": notice } };
}

/**
 * `_meta` of a prompt answer when autopilot reached its cap before the model called
 * `task_complete` (`{"turnloop/autopilotStopped": "cap_reached"}`); a notice says it too
 * (notices.ts).
 */
export function autopilotMeta(outcome: PromptOutcome): {
  _meta?: { "turnloop/autopilotStopped": "cap_reached" };
} {
  return "stopReason" in outcome && outcome.autopilotStopped !== undefined
    ? { _meta: { "turnloop/autopilotStopped": outcome.autopilotStopped } }
    : {};
}

/**
 * A new session in `cwd` with `modelId` (`session/new`), run with `cwd`'s own config (host.ts).
 * @throws `-32603` naming `cwd`'s invalid config file and key (config is per folder: the agent
 *   goes on serving other folders), or the file or database a store could not write (an ENOSPC
 *   names neither by itself).
 */
export async function createSession(
  host: SessionHost,
  cwd: string,
  modelId: string,
): Promise<Session> {
  try {
    return await host.create(cwd, modelId);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw internalError(`turnloop cannot start the session: ${error.message}`);
    }
    throw error instanceof StorageError
      ? internalError(`${storeFailure(error)}: the session was not created`)
      : error;
  }
}

/**
 * Reopens a session from its log, for writing, whether or not its model can run here
 * ({@link sessionModel}).
 * @throws `-32002` for an unknown (or impossible) id; `-32600` naming the process that has the
 * session open when another one (or this connection) does; `-32602` naming its folder when that is
 * not an existing directory; `-32603` naming its folder's invalid config file and key, or
 * otherwise the file or database a store could not write.
 */
export async function openSession(host: SessionHost, sessionId: string): Promise<Session> {
  try {
    return await host.open(sessionId);
  } catch (error) {
    if (error instanceof InvalidSessionIdError || isMissingFileError(error)) {
      throw sessionNotFound(sessionId, "no log");
    }
    if (error instanceof SessionLockedError) {
      throw invalidRequest(error.message, { sessionId, owner: error.owner ?? null });
    }
    if (error instanceof SessionFolderGoneError) {
      // As session/new refuses a cwd that is not an existing directory.
      throw invalidParams(["cwd"], error.message, { cwd: error.folder });
    }
    if (error instanceof ConfigError) {
      // Its folder's config file is invalid: that folder's sessions only are refused.
      throw internalError(`turnloop cannot open session ${sessionId}: ${error.message}`);
    }
    throw internalError(`Could not open session ${sessionId}: ${storeFailure(error)}`);
  }
}

/**
 * Deletes `sessionId`'s log, closed first (ACP v1 session-delete): idempotent, an unknown or
 * impossible id succeeds.
 * @throws `-32600` naming the process that has the session open; `-32603` when the store fails.
 */
export async function deleteStoredSession(
  host: SessionHost,
  sessionId: string,
): Promise<acp.DeleteSessionResponse> {
  try {
    await host.delete(sessionId);
  } catch (error) {
    if (error instanceof SessionLockedError) {
      throw invalidRequest(error.message, { sessionId, owner: error.owner ?? null });
    }
    if (!(error instanceof InvalidSessionIdError)) {
      throw internalError(`Could not delete session ${sessionId}: ${errorMessage(error)}`);
    }
  }
  return {};
}

/**
 * Sends `available_commands_update` after the answer that establishes the session: clients drop
 * updates for a session id they do not know yet (zed #60199). The SDK writes a handler's answer
 * before anything scheduled with `setImmediate` from inside it. A request read meanwhile may have
 * closed the session (a second `session/load` reopens it): a closed session announces nothing.
 * Nothing thrown here may end the process, which serves other requests: a failure (the project's
 * warnings could not be recorded) goes to `log`.
 */
export function announceAfterAnswer(
  acpSession: { id: string; announceCommands(): void },
  log: (line: string) => void,
): void {
  setImmediate(() => {
    try {
      acpSession.announceCommands();
    } catch (error) {
      log(
        `turnloop: session ${acpSession.id}: could not announce its commands: ${errorMessage(error)}`,
      );
    }
  });
}

/**
 * A `session/load` or `session/resume` (`method`) of a session this connection has open closes it
 * and opens it again from its log; while a prompt runs in it, that would cancel the prompt that
 * nobody cancelled (a fresh user's trial, #22), so the open is refused and the prompt goes on.
 * @throws `-32600` with `data` `{sessionId}` when `open` runs a prompt.
 */
export function refuseWhileRunning(
  open: { running: boolean } | undefined,
  sessionId: string,
  method: string,
): void {
  if (open?.running === true) {
    throw invalidRequest(
      `Session ${sessionId} is running a prompt: it stays open as it is; wait for the prompt's answer (or send session/cancel), then send ${method} again.`,
      { sessionId },
    );
  }
}

/**
 * Before a `session/load` or `session/resume` (`method`) of a session that may be open here
 * (`open`) closes it to open it again, once every open of it read before has ended: refused
 * while a prompt runs in it (a prompt read before may have started since the request came), or
 * when `cwd` is not its folder, so a refused open leaves the open session as it was.
 * @throws as {@link refuseWhileRunning}, {@link checkAbsolute} and {@link checkSessionFolder}.
 */
export async function checkReopen(
  host: SessionHost,
  open: { running: boolean } | undefined,
  { sessionId, cwd }: { sessionId: string; cwd: string },
  method: string,
): Promise<void> {
  refuseWhileRunning(open, sessionId, method);
  if (open !== undefined) {
    checkAbsolute(cwd);
    const stored = await host.readEvents(sessionId).catch(() => undefined);
    checkSessionFolder(stored?.events ?? [], sessionId, cwd);
  }
}

/**
 * Starts a session's MCP servers: the editor's (ACP session-setup `mcpServers`, read by
 * editor-mcp-servers.ts) over the config files'. They start in the background; problems go to
 * `log` (stderr) and, with the session's first updates, to the editor.
 */
export async function startMcpServers(
  host: SessionHost,
  session: Session,
  servers: readonly acp.McpServer[],
  log: (line: string) => void,
): Promise<void> {
  await host.startMcpServers(session, editorServers(session, servers, log), log);
}

/**
 * ACP v1 session-list: a page of this home's sessions, newest first, optionally of one cwd.
 * @throws `-32602` for a cursor this agent did not give, or a `cwd` that is not absolute.
 */
export async function listPage(
  host: SessionHost,
  params: acp.ListSessionsRequest,
): Promise<acp.ListSessionsResponse> {
  const start = params.cursor == null ? 0 : Number.parseInt(params.cursor, 10);
  if (!Number.isInteger(start) || start < 0) {
    throw invalidParams(
      ["cursor"],
      `expected a nextCursor of an earlier session/list answer, not ${JSON.stringify(params.cursor)}`,
      { cursor: params.cursor },
    );
  }
  if (params.cwd != null) {
    // As session/new refuses it: an editor's bug, not "no sessions" (a fresh user's trial).
    checkAbsolute(params.cwd);
  }
  const sessions: acp.SessionInfo[] = [];
  for (const summary of await host.list({ cwd: params.cwd ?? undefined })) {
    if (summary.cwd === null) {
      continue;
    }
    const title = sessionTitle(summary);
    sessions.push({
      sessionId: summary.sessionId,
      cwd: summary.cwd,
      updatedAt: summary.lastActivity,
      ...(title === null ? {} : { title }),
    });
  }
  const page = sessions.slice(start, start + LIST_PAGE_SIZE);
  const next = start + LIST_PAGE_SIZE;
  return { sessions: page, ...(next < sessions.length ? { nextCursor: String(next) } : {}) };
}
