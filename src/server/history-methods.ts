/**
 * The Copilot SDK's `session.history.*` rewind methods and `sessions.fork` (names, params and
 * results of the SDK's generated `rpc.d.ts`: `HistoryTruncateRequest`, `HistoryRewindRequest`,
 * `SessionsForkRequest` …). turnloop never rewrites a log: a rewind appends
 * `session.snapshot_rewind` and every fold leaves the removed events out (src/session/rewind.ts).
 * turnloop does not capture file changes, so rewinds are conversation-only.
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import { forkSession } from "../session/fork.js";
import { PromptInProgressError } from "../session/prompt-in-progress.js";
import { conversationEvents, RewindTargetError } from "../session/rewind.js";
import type { ClientConnection } from "./connection.js";
import {
  invalidParams,
  parseParams,
  sessionDeleted,
  sessionIdSchema,
  sessionOnlyParams,
} from "./params.js";
import type { ServerSession } from "./server-session.js";
import { openSession } from "./session-methods.js";

const eventParams = z.looseObject({ sessionId: sessionIdSchema, eventId: z.string().min(1) });
const rewindParams = z.looseObject({
  sessionId: sessionIdSchema,
  eventId: z.string().min(1),
  mode: z.enum(["conversation", "conversation-and-files"]),
});
const forkParams = z.looseObject({
  sessionId: sessionIdSchema,
  toEventId: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
});

/** Why a rewind with files is refused (Copilot's `HistoryRewindUnavailableReason`). */
const NO_FILE_TRACKING = "file-change-tracking-disabled";

/** The conversation's events of an open session, read from its store. */
async function conversationOf(connection: ClientConnection, sessionId: string) {
  const { events } = await connection.server.host.readEvents(sessionId);
  return { log: events, conversation: conversationEvents(events) };
}

/** Rewinds `session` to before `eventId`; `undefined` when a prompt is running. */
async function rewindTo(
  connection: ClientConnection,
  session: ServerSession,
  method: string,
  eventId: string,
): Promise<number | undefined> {
  const { log } = await conversationOf(connection, session.id);
  try {
    const rewind = await session.session.rewind(log, eventId);
    return rewind.type === "session.snapshot_rewind" ? rewind.data.eventsRemoved : 0;
  } catch (error) {
    if (error instanceof PromptInProgressError) {
      return undefined;
    }
    throw invalidParams(`${method}: ${errorMessage(error)}`);
  }
}

/**
 * `session.history.truncate {eventId}` → `{eventsRemoved}`: `eventId` and every later event leave
 * the conversation (the model's view, `session.getMessages`, a resume).
 * @throws invalidParams for an event not in the conversation, the `session.start`, or while a
 * prompt runs.
 */
export async function truncateMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.history.truncate";
  const { sessionId, eventId } = parseParams(method, eventParams, raw);
  const session = openSession(connection.server, sessionId);
  const eventsRemoved = await rewindTo(connection, session, method, eventId);
  if (eventsRemoved === undefined) {
    throw invalidParams(`${method}: a prompt is running in session ${sessionId}; abort it first`);
  }
  return { eventsRemoved };
}

/**
 * `session.history.rewind {eventId, mode}` → `HistoryRewindResult`: `conversation` rewinds as
 * truncate does; `conversation-and-files` answers `file-change-tracking-disabled` (turnloop does
 * not capture files); `session-busy` while a prompt runs.
 * @throws invalidParams for an event not in the conversation.
 */
export async function rewindMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.history.rewind";
  const { sessionId, eventId, mode } = parseParams(method, rewindParams, raw);
  const session = openSession(connection.server, sessionId);
  const unchanged = { restoredFiles: [], skippedFiles: [] };
  if (mode === "conversation-and-files") {
    return { outcome: NO_FILE_TRACKING, ...unchanged };
  }
  const eventsRemoved = await rewindTo(connection, session, method, eventId);
  return eventsRemoved === undefined
    ? { outcome: "session-busy", ...unchanged }
    : { outcome: "success", eventsRemoved, ...unchanged };
}

/**
 * `session.history.listRewindPoints` → `{fileChangeTrackingEnabled: false, points}`: the user's
 * own prompts of the conversation (autopilot continuations marked), oldest first.
 */
export async function listRewindPointsMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.history.listRewindPoints";
  const { sessionId } = parseParams(method, sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  const { conversation } = await conversationOf(connection, sessionId);
  const points = conversation.flatMap((event) => rewindPoint(event));
  return { fileChangeTrackingEnabled: false, points };
}

function rewindPoint(event: SessionEvent) {
  if (event.type !== "user.message" || event.data.source === "hook") {
    return [];
  }
  const noFiles = { canRestoreFiles: false, fileCount: 0, turnChangedFiles: false };
  return [
    {
      eventId: event.id,
      userMessage: event.data.content,
      timestamp: event.timestamp,
      ...noFiles,
      linesAdded: 0,
      linesRemoved: 0,
      isAutopilotContinuation: event.data.source === "autopilot",
    },
  ];
}

/** `session.history.previewRewind` → no files: turnloop does not capture file changes. */
export function previewRewindMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.history.previewRewind", eventParams, raw);
  openSession(connection.server, sessionId);
  return { available: false, reason: NO_FILE_TRACKING, fileCount: 0, files: [] };
}

/**
 * `sessions.fork {sessionId, toEventId?, name?}` → `{sessionId, name?}`: a new session holding the
 * source's conversation before `toEventId` (all of it when absent); the app resumes it to go on.
 * The source need not be open here.
 * @throws invalidParams for a session that does not exist or an event not in its conversation.
 */
export async function forkMethod(connection: ClientConnection, raw: unknown) {
  const method = "sessions.fork";
  const params = parseParams(method, forkParams, raw);
  const host = connection.server.host;
  let log: SessionEvent[];
  try {
    log = (await host.readEvents(params.sessionId)).events;
  } catch (error) {
    if (connection.server.deleted.has(params.sessionId)) {
      throw sessionDeleted(params.sessionId);
    }
    throw invalidParams(`${method}: no session ${params.sessionId} (${errorMessage(error)})`);
  }
  try {
    const options = { toEventId: params.toEventId, title: params.name };
    const sessionId = await forkSession(host.store, log, options);
    return { sessionId, ...(params.name === undefined ? {} : { name: params.name }) };
  } catch (error) {
    if (error instanceof RewindTargetError) {
      throw invalidParams(`${method}: ${error.message}`);
    }
    throw error;
  }
}
