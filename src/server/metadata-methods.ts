/**
 * The Copilot SDK's `session.metadata.snapshot` and `isProcessing` (names and result shapes of
 * the SDK's generated `rpc.d.ts`: `SessionMetadataSnapshot`, `MetadataIsProcessingResult`), from
 * the open session and the store's listing.
 */

import { sessionTitle } from "../session/session-title.js";
import type { ClientConnection } from "./connection.js";
import { listedSession } from "./name-methods.js";
import { parseParams, sessionOnlyParams } from "./params.js";
import { openSession } from "./session-methods.js";
import { bareModelId } from "./wire-events.js";

/**
 * `session.metadata.snapshot` → `SessionMetadataSnapshot`: id, times, folders, the mode (`shell`
 * reported as `interactive`, Copilot's modes having no shell), the bare model id, and the name
 * (else the first prompt) as `summary`. turnloop sessions are local and have no limits.
 */
export async function snapshotMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.metadata.snapshot", sessionOnlyParams, raw);
  const session = openSession(connection.server, sessionId);
  const { start, directory, cwd } = session.session;
  // The store's metadata, never the whole log (name-methods.ts `listedSession`).
  const listed = await listedSession(connection, sessionId);
  const summary = session.name ?? (listed === undefined ? null : sessionTitle(listed));
  return {
    sessionId,
    startTime: start.startTime,
    modifiedTime: listed?.lastActivity ?? start.startTime,
    isRemote: false,
    alreadyInUse: false,
    workspacePath: directory,
    ...(summary === null ? {} : { summary }),
    workingDirectory: cwd,
    currentMode: session.mode === "shell" ? "interactive" : session.mode,
    selectedModel: bareModelId(session.modelId),
    sessionLimits: null,
  };
}

/** `session.metadata.isProcessing` → `{processing}`: whether a prompt is running. */
export function isProcessingMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.metadata.isProcessing", sessionOnlyParams, raw);
  return { processing: openSession(connection.server, sessionId).session.busy };
}
