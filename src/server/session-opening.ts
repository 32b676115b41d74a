/**
 * Opening sessions on the wire: `session.create` and `session.resume` (Copilot protocol v3 names
 * and shapes; see `src/protocol/copilot.ts`). The sessions themselves come from the host's
 * registry; what is kept here is each session's protocol state ({@link ServerSession}).
 */

import { errorMessage, withoutPrefix } from "../events/errors.js";
import type { ModelConfiguration } from "../llm/models.js";
import { ServerToClient, type SessionCreateResult } from "../protocol/copilot.js";
import { ConfigError } from "../session/config-paths.js";
import { logProjectWarnings, recordProjectWarnings } from "../session/project-warnings.js";
import type { Session } from "../session/session.js";
import { SessionLockedError } from "../session/session-store.js";
import { StorageError } from "../session/storage-error.js";
import { broadcast, type ClientConnection, type ServerContext } from "./connection.js";
import { warnIgnoredSettings } from "./ignored-settings.js";
import { receiveInbox } from "./inbox-receiver.js";
import { appServers, joinAppServers, warnAppServers } from "./mcp-settings.js";
import {
  type CreateParams,
  createParams,
  invalidParams,
  parseParams,
  resumeParams,
  sessionDeleted,
} from "./params.js";
import { resumeHere } from "./pending-work.js";
import { followsHere, resumeRemote, warnedWhileFollowing } from "./remote-sessions.js";
import { chooseModel, chooseResumedModel } from "./server-model.js";
import { ServerSession } from "./server-session.js";
import type { UnresolvedModel } from "./session-choices.js";
import { checkResumeFolder, workingDirectory } from "./session-folders.js";
import { checkSandbox } from "./session-sandbox.js";
import type { SessionConfig } from "./session-settings.js";
import { checkDeclaredTools } from "./tool-filter.js";
import { bareModelId, type CurrentModel, modelNamesOnWire } from "./wire-events.js";

/**
 * Records `session`'s project warnings in it (project-warnings.ts) and writes its folder's to
 * stderr when no session of that folder did (the start folder's were written at start).
 */
function recordWarnings(server: ServerContext, session: Session): void {
  const config = server.host.configOf(session);
  recordProjectWarnings(session, config);
  logProjectWarnings(config, server.host.config, (line) => server.log(withoutPrefix(line)));
}

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
  checkDeclaredTools("session.create", params.tools);
  await checkSandbox(server.host.sandbox, "session.create", params.sandbox);
  const cwd = await workingDirectory(server, params.workingDirectory);
  if (params.sessionId !== undefined && server.sessions.has(params.sessionId)) {
    throw invalidParams(`session.create: session ${params.sessionId} is already open`);
  }
  // Before the lease: it then says this worker takes its inbox (session-store.ts `receive`).
  receiveInbox(server);
  let session: Session;
  try {
    const { sessionId } = params;
    session = await server.host.create(
      cwd,
      choice.configuration.id,
      sessionId === undefined ? {} : { sessionId },
    );
  } catch (error) {
    // A store's refusal (a full disk, a database down) is no fault of the params: -32603 naming
    // its file or database (connection.ts); a bad or taken `sessionId` is.
    throw error instanceof StorageError
      ? error
      : invalidParams(`session.create: ${errorMessage(error)}`);
  }
  warnAppServers(session, await startMcp(server, session, params.mcpServers));
  // Sent live below with `session.start` (project-warnings.ts).
  recordWarnings(server, session);
  warnIgnoredSettings(session, "session.create", raw);
  // Once stored (an event recorded after the lease was let go is told then: held-delivery.ts
  // `HeldDelivery`), before the app's subscription below: it gets them once, sent below.
  await session.journal.delivered();
  const mode = params.mode ?? server.defaultMode;
  const start = { model: choice.configuration, mode, source: "new" as const };
  const serverSession = open(server, session, start);
  serverSession.attach(connection, configOf(params));
  // Copilot sends `session.start` live, before the answer (the SDK's `onEvent` sees it).
  for (const event of session.openingEvents) {
    const wire = modelNamesOnWire(event);
    connection.notify(ServerToClient.sessionEvent, { sessionId: session.id, event: wire });
  }
  serverSession.choices.byok = params.provider !== undefined;
  if (params.reasoningEffort !== undefined) {
    serverSession.switchModel(choice.configuration, params.reasoningEffort);
  }
  broadcast(server, ServerToClient.sessionLifecycle, {
    type: "session.created",
    sessionId: session.id,
    metadata: { startTime: session.start.startTime, modifiedTime: session.start.startTime },
  });
  return describe(serverSession);
}

/**
 * `session.resume`: reopens a session from its log (or joins one already open in this process,
 * or reopened by an earlier request: the app is attached beside the others, see
 * session-clients.ts) with the app's registrations. Past events
 * are not re-sent; read them with `session.getMessages`. A session open in another process (its
 * lock, see session-lock.ts) is `-32602` naming that process. Resumes of one session run in turn;
 * the other requests naming it wait for them (`ServerContext.openings`).
 */
export function resumeMethod(
  connection: ClientConnection,
  raw: unknown,
): Promise<SessionCreateResult> {
  const params = parseParams("session.resume", resumeParams, raw);
  return connection.server.openings.open(params.sessionId, () => resume(connection, raw, params));
}

async function resume(
  connection: ClientConnection,
  raw: unknown,
  params: ReturnType<typeof resumeParams.parse>,
): Promise<SessionCreateResult> {
  const { server } = connection;
  checkDeclaredTools("session.resume", params.tools);
  await checkSandbox(server.host.sandbox, "session.resume", params.sandbox);
  await checkResumeFolder(server, params.sessionId, params.workingDirectory);
  const open = await openHere(server, params.sessionId);
  // Held by another worker: followed here, its prompts sent to that worker (issue 22).
  const remote =
    open === undefined ? await resumeRemote(connection, params.sessionId, raw) : undefined;
  if (remote !== undefined) {
    return remote;
  }
  // A client claiming the session it followed had its warning from the following.
  const warned = warnedWhileFollowing(connection, params.sessionId);
  const opened =
    open === undefined ? await reopen(server, params) : { serverSession: open, reopened: false };
  const { serverSession, reopened } = opened;
  let mcpProblems = opened.mcpProblems ?? [];
  if (!reopened) {
    await resumeHere(serverSession, params.continuePendingWork);
    mcpProblems = await joinAppServers(server, serverSession.session, params.mcpServers);
  }
  if (reopened) {
    // A follower claiming the session gets `session.resume` from its following instead.
    if (!followsHere(connection, params.sessionId)) {
      announceRepair(connection, serverSession.session, serverSession.currentModel());
    }
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
  if (!reopened && params.continuePendingWork === true) {
    const { clients } = serverSession;
    clients.openRequests.resendLater(serverSession.id, connection, (toolName) =>
      clients.mayBeAsked(connection, toolName),
    );
  }
  server.detached.delete(params.sessionId);
  // After the answer, as announceRepair: the app's session object exists to receive them.
  setImmediate(() => {
    warnAppServers(serverSession.session, mcpProblems);
    recordWarnings(server, serverSession.session);
    if (!warned) {
      warnIgnoredSettings(serverSession.session, "session.resume", raw);
    }
  });
  return describe(serverSession);
}

/** The session `sessionId` when it is served here (one that is closing is waited for first). */
async function openHere(
  server: ServerContext,
  sessionId: string,
): Promise<ServerSession | undefined> {
  const open = server.sessions.get(sessionId);
  if (open?.closing) {
    await open.close();
    return openHere(server, sessionId);
  }
  return open;
}

/**
 * Opens `params.sessionId`'s log through the host, its model checked before anything is written (a
 * refused resume leaves the log as it was).
 * @throws `-32602` naming why: held elsewhere, its folder gone, its folder's config file invalid,
 * its model unusable here (SessionFolderGoneError and ReopenRefusedError are ConfigErrors), no
 * such session, or the store's failure.
 */
async function openStored(
  server: ServerContext,
  params: ReturnType<typeof resumeParams.parse>,
): Promise<Session> {
  // A reopen has no work left waiting: its open calls get interrupted results (Session.resume).
  const { continuePendingWork } = params;
  const details =
    continuePendingWork === undefined
      ? undefined
      : { continuePendingWork, sessionWasActive: false };
  try {
    return await server.host.open(params.sessionId, details, ({ start, state }) => {
      const choice = resumedModel(params, server.host, state.changedModel ?? start.model);
      return "problem" in choice ? choice.problem : undefined;
    });
  } catch (error) {
    if (error instanceof SessionLockedError || error instanceof ConfigError) {
      throw invalidParams(`session.resume: ${error.message}`);
    }
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      if (server.deleted.has(params.sessionId)) {
        throw sessionDeleted(params.sessionId);
      }
      // Its folder is not there (deleted, or never made): not the path of the lock it lacks.
      throw invalidParams(
        `session.resume: no session ${params.sessionId} exists here (it was deleted, or never made)`,
      );
    }
    throw invalidParams(
      `session.resume: no session ${params.sessionId} can be resumed (${errorMessage(error)})`,
    );
  }
}

/**
 * Reopens `params.sessionId` through the host's registry (one open however many requests ask at
 * once) and serves it; a request that finds it served by a concurrent one joins it.
 */
async function reopen(
  server: ServerContext,
  params: ReturnType<typeof resumeParams.parse>,
): Promise<{ serverSession: ServerSession; reopened: boolean; mcpProblems?: readonly string[] }> {
  receiveInbox(server);
  const session = await openStored(server, params);
  // Checked without awaiting: between here and `open` below no other request runs.
  const served = server.sessions.get(session.id);
  if (served?.closing) {
    await served.close();
    return reopen(server, params);
  }
  if (served !== undefined) {
    return { serverSession: served, reopened: false };
  }
  if (server.host.get(session.id) !== session) {
    // A concurrent request that shared this open failed and closed it: open it afresh.
    return reopen(server, params);
  }
  // The model it ran with: its last `session.model_change`'s, else its start's.
  const recorded = session.changedModel ?? session.start.model;
  const choice = resumedModel(params, server.host, recorded);
  if ("problem" in choice) {
    await server.host.close(session);
    throw invalidParams(`session.resume: ${choice.problem}`);
  }
  // Served at once, before anything is awaited, so a concurrent request finds it.
  const reopened = open(server, session, {
    model:
      "configuration" in choice ? { ...choice.configuration, id: recorded } : choice.unresolved,
    mode: params.mode ?? server.defaultMode,
    source: "resume",
  });
  // Records `session.model_change` when the app resumes with another model (or effort).
  if ("configuration" in choice) {
    reopened.switchModel(choice.configuration, params.reasoningEffort);
  } else if (params.reasoningEffort !== undefined) {
    reopened.choices.reasoningEffort = params.reasoningEffort;
  }
  reopened.choices.byok = params.provider !== undefined;
  const mcpProblems = await startMcp(server, session, params.mcpServers);
  return { serverSession: reopened, reopened: true, mcpProblems };
}

/**
 * The model `session.resume` reopens a session with (server-model.ts `chooseResumedModel`). The
 * one it ran with (`recorded`), when the app names none, is kept unresolved when it cannot run
 * here, as ACP's `session/load` and `session/resume` keep it: the session is resumed, its
 * `session.send` refused naming the problem until it resolves or `session.model.switchTo` changes
 * it (session-choices.ts). A model the app names that cannot run is the request's `problem`.
 */
function resumedModel(
  params: ReturnType<typeof resumeParams.parse>,
  host: ServerContext["host"],
  recorded: string,
): { configuration: ModelConfiguration } | { unresolved: UnresolvedModel } | { problem: string } {
  const choice = chooseResumedModel(params, host, recorded);
  if (choice.ok) {
    return { configuration: choice.configuration };
  }
  return params.model === undefined && params.provider === undefined
    ? { unresolved: { id: recorded, problem: choice.message } }
    : { problem: choice.message };
}

/**
 * Starts a new or reopened session's MCP servers: the app's `mcpServers` (Copilot SDK shape)
 * over the config files'. They start in the background; problems go to stderr, and an entry left
 * out is returned, for the app's `session.warning` (mcp-settings.ts).
 */
async function startMcp(
  server: ServerContext,
  session: Session,
  mcpServers: Record<string, unknown> | undefined,
): Promise<readonly string[]> {
  const given = appServers(mcpServers, (line) => server.log(withoutPrefix(line)));
  // The SDK face names MCP tools as the Copilot CLI does: `<server>-<tool>`.
  await server.host.startMcpServers(
    session,
    given.servers,
    (line) => server.log(withoutPrefix(line)),
    undefined,
    "copilot",
  );
  return given.problems;
}

/**
 * When opening repaired the log, sends its `session.resume` event (with `notice`) to the client
 * once, after the `session.resume` answer so the app's session object exists to receive it (the
 * Copilot CLI too emits a new `session.resume` event on resume).
 */
function announceRepair(
  connection: ClientConnection,
  session: Session,
  current: CurrentModel,
): void {
  const event = session.resumeEvent;
  if (event !== undefined && session.repairNotice !== undefined) {
    const wire = modelNamesOnWire(event, current);
    setImmediate(() =>
      connection.notify(ServerToClient.sessionEvent, { sessionId: session.id, event: wire }),
    );
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
  server.deleted.delete(session.id);
  receiveInbox(server);
  return serverSession;
}

function configOf(params: CreateParams): SessionConfig {
  const { tools, systemMessage, requestPermission, hooks, streaming, allowAllTools } = params;
  const { availableTools, clientName, requestUserInput, sandbox, infiniteSessions } = params;
  const { requestSandboxBypass } = params;
  // turnloop has no sub-agents: the default agent's exclusions exclude for the session.
  const excluded = [...(params.excludedTools ?? []), ...(params.defaultAgent?.excludedTools ?? [])];
  return {
    ...{ tools, systemMessage, requestPermission, hooks, streaming, allowAllTools },
    ...{ availableTools, clientName, requestUserInput, requestSandboxBypass, infiniteSessions },
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(excluded.length === 0 ? {} : { excludedTools: excluded }),
  };
}

/** The `session.create` / `session.resume` answer. */
function describe(served: ServerSession): SessionCreateResult {
  return {
    sessionId: served.id,
    workspacePath: served.session.directory,
    startTime: served.session.start.startTime,
    isRemote: false,
    mode: served.choices.mode,
    capabilities: { ui: { elicitation: false } },
    modelState: { modelId: bareModelId(served.choices.modelId) },
  };
}
