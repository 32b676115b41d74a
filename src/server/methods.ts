/**
 * The method table of `turnloop --headless`: the core of the Copilot SDK protocol v3 (names,
 * params and results as the Copilot SDK sends and reads them). Anything else is `-32601`.
 */

import { PROTOCOL_VERSION } from "../protocol/copilot.js";
import { commandsInvokeMethod, commandsListMethod } from "./command-methods.js";
import type { ClientConnection, MethodHandler } from "./connection.js";
import { modifyRulesMethod, pendingRequestsMethod, resetApprovalsMethod } from "./grant-methods.js";
import {
  forkMethod,
  listRewindPointsMethod,
  previewRewindMethod,
  rewindMethod,
  truncateMethod,
} from "./history-methods.js";
import {
  mcpDisableMethod,
  mcpEnableMethod,
  mcpListMethod,
  mcpRestartMethod,
} from "./mcp-methods.js";
import { isProcessingMethod, snapshotMethod } from "./metadata-methods.js";
import { nameGetMethod, nameSetAutoMethod, nameSetMethod } from "./name-methods.js";
import { connectParams, listParams, parseParams, pingParams } from "./params.js";
import { listedModels } from "./server-model.js";
import {
  abortMethod,
  acceptedMethod,
  deleteMethod,
  detachMethod,
  effortSetMethod,
  getMessagesMethod,
  historyCompactMethod,
  modeGetMethod,
  modelGetMethod,
  modelSwitchMethod,
  modeSetMethod,
  permissionAnswerMethod,
  sendMethod,
  sessionModelsMethod,
  suspendMethod,
  toolAnswerMethod,
} from "./session-methods.js";
import { createMethod, resumeMethod } from "./session-opening.js";
import {
  agentCurrentMethod,
  agentListMethod,
  logMethod,
  metadataMethod,
  planReadMethod,
  sessionListEntry,
  sessionShutdownMethod,
  toolsListMethod,
  usageMethod,
  workspaceMethod,
} from "./state-methods.js";

/** `connect {token?}`: the handshake; checks the connection token when one is required. */
function connectMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("connect", connectParams, raw);
  connection.authenticate(params?.token);
  return {
    ok: true,
    protocolVersion: PROTOCOL_VERSION,
    version: connection.server.version,
    taskKinds: [],
  };
}

/**
 * `ping {message?}` → `{message: "pong: <message>", timestamp (ISO-8601), protocolVersion}`
 * (Copilot's answer shape). @throws `-32602` for bad params.
 */
function pingMethod(_connection: ClientConnection, raw: unknown) {
  const params = parseParams("ping", pingParams, raw);
  return {
    message: `pong: ${params?.message ?? ""}`,
    timestamp: new Date().toISOString(),
    protocolVersion: PROTOCOL_VERSION,
  };
}

/** `status.get` → `{version, protocolVersion}`: this server's package version and protocol. */
function statusMethod(connection: ClientConnection) {
  return { version: connection.server.version, protocolVersion: PROTOCOL_VERSION };
}

/** turnloop needs no GitHub account: model keys come from the provider or the environment. */
function authStatusMethod() {
  return { isAuthenticated: true, authType: "api-key", statusMessage: "turnloop uses model keys" };
}

/**
 * `models.list` → `{models}`: the configured models as Copilot's `ModelInfo` (server-model.ts).
 */
function modelsMethod(connection: ClientConnection) {
  return { models: listedModels(connection.server.host) };
}

/**
 * `session.list {filter?: {cwd}}` → `{sessions}`: every session in the store, newest first, each
 * as `sessionListEntry` shapes it.
 */
async function listMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("session.list", listParams, raw);
  const summaries = await connection.server.host.list({ cwd: params?.filter?.cwd });
  return { sessions: summaries.map(sessionListEntry) };
}

/** `session.getLastId` → `{sessionId?}`: the store's newest session; `{}` when there is none. */
async function lastIdMethod(connection: ClientConnection) {
  const [newest] = await connection.server.host.list();
  return newest === undefined ? {} : { sessionId: newest.sessionId };
}

/** `runtime.shutdown`: answered first, then every session is cancelled and closed. */
function shutdownMethod(connection: ClientConnection) {
  setImmediate(() => connection.server.requestShutdown());
  return null;
}

export const METHODS: Readonly<Record<string, MethodHandler>> = {
  connect: connectMethod,
  ping: pingMethod,
  "status.get": statusMethod,
  "auth.getStatus": authStatusMethod,
  "models.list": modelsMethod,
  "runtime.shutdown": shutdownMethod,
  "session.create": createMethod,
  "session.resume": resumeMethod,
  "session.send": sendMethod,
  "session.abort": abortMethod,
  "session.suspend": suspendMethod,
  "session.getMessages": getMessagesMethod,
  "session.getEvents": getMessagesMethod,
  "session.list": listMethod,
  "session.getLastId": lastIdMethod,
  "session.delete": deleteMethod,
  "session.detach": detachMethod,
  "session.destroy": detachMethod,
  "session.mode.get": modeGetMethod,
  "session.mode.set": modeSetMethod,
  "session.model.getCurrent": modelGetMethod,
  "session.model.switchTo": modelSwitchMethod,
  "session.model.setReasoningEffort": effortSetMethod,
  "session.model.list": sessionModelsMethod,
  "session.history.compact": historyCompactMethod,
  "session.history.truncate": truncateMethod,
  "session.history.rewind": rewindMethod,
  "session.history.listRewindPoints": listRewindPointsMethod,
  "session.history.previewRewind": previewRewindMethod,
  "sessions.fork": forkMethod,
  "session.tools.handlePendingToolCall": toolAnswerMethod,
  "session.permissions.handlePendingPermissionRequest": permissionAnswerMethod,
  "session.permissions.pendingRequests": pendingRequestsMethod,
  "session.permissions.resetSessionApprovals": resetApprovalsMethod,
  "session.permissions.modifyRules": modifyRulesMethod,
  // Sent by the Copilot SDK for options turnloop has no use for; accepted without effect.
  "session.options.update": acceptedMethod,
  "session.eventLog.registerInterest": acceptedMethod,
  "session.getMetadata": metadataMethod,
  "sessions.getMetadata": metadataMethod,
  "sessions.list": listMethod,
  "sessions.delete": deleteMethod,
  "session.log": logMethod,
  "tools.list": toolsListMethod,
  "session.name.get": nameGetMethod,
  "session.name.set": nameSetMethod,
  "session.name.setAuto": nameSetAutoMethod,
  "session.metadata.snapshot": snapshotMethod,
  "session.metadata.isProcessing": isProcessingMethod,
  "session.mcp.list": mcpListMethod,
  "session.commands.list": commandsListMethod,
  "session.commands.invoke": commandsInvokeMethod,
  "session.mcp.enable": mcpEnableMethod,
  "session.mcp.disable": mcpDisableMethod,
  "session.mcp.restartServer": mcpRestartMethod,
  "session.usage.getMetrics": usageMethod,
  "session.plan.read": planReadMethod,
  "session.workspaces.getWorkspace": workspaceMethod,
  "session.agent.list": agentListMethod,
  "session.agent.getCurrent": agentCurrentMethod,
  "session.shutdown": sessionShutdownMethod,
};
