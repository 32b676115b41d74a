/**
 * The end of prompts a follower's client sent to a session another worker runs (issue 22,
 * remote-sessions.ts), told on the Copilot protocol: the client's `session.idle`, and the
 * `session.error` before it when the owner dropped prompts or, dying, left one unfinished.
 */

import type { SessionEventData } from "../events/events.js";
import { idleData } from "../events/idle.js";
import { ServerToClient } from "../protocol/copilot.js";
import { droppedPromptsMessage, interruptedPromptMessage } from "../session/dropped-prompts.js";
import { createEnvelope } from "../session/envelope.js";
import type { PromptEnd, SentPromptNews, SentPrompts } from "../session/prompt-end.js";
import type { RefusedPrompt } from "../session/session-store.js";
import { sendIdle } from "./client-link.js";
import type { ClientConnection } from "./connection.js";
import { notificationFrame } from "./notification-text.js";

/**
 * A session followed here (remote-sessions.ts): its id, start time and the mode of its last
 * prompt, for `session.idle`'s `mode` (client-link.ts `sendIdle`).
 */
export interface FollowedSession {
  sessionId: string;
  startTime: string;
  promptMode?: string | undefined;
}

/**
 * Sends `session.idle` where a prompt's stored events end, unless a prompt this client sent waits
 * on the owner (one idle answers every send, as for a local session); a prompt the owner dropped
 * (it closed the session, or was gone, before running or finishing it) ends with a
 * `session.error` first (the Copilot SDK's `sendAndWait` rejects with its message). Prompts an
 * abort dropped from the owner's queue end as a local session's app's queued prompts do (its
 * abort, stored, then the aborted idle, `stopReason: "cancelled"`; no error: `sendAndWait`
 * resolves, as the Copilot SDK's does for an aborted prompt).
 */
export function endPrompts(
  connection: ClientConnection,
  session: FollowedSession,
  news: SentPromptNews | undefined,
  parentId: string | null,
): void {
  const idle = (data: SessionEventData["session.idle"]) =>
    sendIdle(
      [connection],
      session.sessionId,
      session.startTime,
      createEnvelope({ type: "session.idle", data }, parentId),
      session.promptMode,
    );
  if (news?.kind === "dropped" && news.cause === "abort") {
    idle(idleData({ stopReason: "cancelled" }));
  } else if (news?.kind === "dropped") {
    const message = droppedMessage(session.sessionId, news);
    const error = createEnvelope(
      { type: "session.error", data: { errorType: "server", message } },
      parentId,
    );
    connection.notify(ServerToClient.sessionEvent, { sessionId: session.sessionId, event: error });
    idle(idleData({ error }));
  } else if (news?.kind === "ended") {
    endedIdle([connection], news.idle ? [connection] : [], session, news.end, parentId);
  }
}

/**
 * Sends the owner's own idle where a prompt's stored events end (events/idle.ts: a failure's is
 * `{}`, after its `session.error`) to `idleFor` (the followers with no prompt of theirs waiting),
 * encoded once: each gets the same bytes, as a local session's apps do (session-clients.ts). A
 * failure the log holds no `session.error` of (a prompt its process left unfinished: prompt-end.ts
 * `PROMPT_INTERRUPTED`) is first sent its error, to every follower in `told` (those it was news
 * to), as every app of a local session gets a failure's error.
 */
export function endedIdle(
  told: readonly ClientConnection[],
  idleFor: readonly ClientConnection[],
  session: FollowedSession,
  end: PromptEnd,
  parentId: string | null,
): void {
  if ("stored" in end) {
    const error = createEnvelope({ type: "session.error", data: end.error }, parentId);
    const frame = notificationFrame(ServerToClient.sessionEvent, {
      sessionId: session.sessionId,
      event: error,
    });
    for (const connection of told) {
      connection.notifyFrame(frame);
    }
  }
  if (idleFor.length > 0) {
    const idle = createEnvelope({ type: "session.idle", data: idleData(end) }, parentId);
    sendIdle(idleFor, session.sessionId, session.startTime, idle, session.promptMode);
  }
}

/**
 * Ends the prompts among `refused` (this client's: `SentPrompts.refused`), which the owner refused
 * before storing anything of them, as a local refusal ends (agent/loop.ts `refuse`): each one's
 * `session.error` with the owner's error data, then `session.idle` unless another prompt this
 * client sent still waits on the owner (one idle answers every send).
 */
export function endRefused(
  connection: ClientConnection,
  session: FollowedSession,
  refused: readonly RefusedPrompt[],
  prompts: Pick<SentPrompts, "waiting">,
): void {
  for (const { error: data } of refused) {
    const error = createEnvelope({ type: "session.error", data }, null);
    connection.notify(ServerToClient.sessionEvent, { sessionId: session.sessionId, event: error });
  }
  if (refused.length > 0 && !prompts.waiting) {
    const idle = createEnvelope({ type: "session.idle", data: {} }, null);
    sendIdle([connection], session.sessionId, session.startTime, idle, session.promptMode);
  }
}

/**
 * What a follower's client is told of prompts its owner dropped (or, dying, left unfinished), in
 * the faces' shared wording (session/dropped-prompts.ts): every prompt it sent, counted.
 */
function droppedMessage(
  sessionId: string,
  news: Extract<SentPromptNews, { kind: "dropped" }>,
): string {
  const { cause } = news;
  if (cause === "shutdown" || cause === "abort" || cause === "replaced") {
    return droppedPromptsMessage(sessionId, cause, news.promptIds.length);
  }
  return [
    ...(news.interrupted === undefined
      ? []
      : [interruptedPromptMessage(sessionId, "sent from this worker", cause)]),
    ...(news.promptIds.length === 0
      ? []
      : [droppedPromptsMessage(sessionId, cause, news.promptIds.length)]),
  ].join("; ");
}
