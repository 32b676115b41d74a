/**
 * The app's connection as a server session sees it, and what the session sends over it at the end
 * of a send (Copilot protocol v3: `session.event` with `session.idle`, then `session.lifecycle`).
 */

import type { SessionEvent } from "../events/events.js";
import { ServerToClient } from "../protocol/copilot.js";
import { assistantIdleBefore } from "./wire-events.js";

/** The connection a session's notifications and hook calls go to. */
export interface ClientLink {
  notify(method: string, params: object): void;
  /** @throws when the connection closes, `signal` aborts or `timeoutMs` passes first. */
  request(
    method: string,
    params: object,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<unknown>;
}

/**
 * Tells the app that the session is idle: Copilot's ephemeral `assistant.idle` (wire-events.ts),
 * the held `session.idle` (as the Copilot SDK reads it), then `session.lifecycle`
 * `session.updated` with the session's start and modified times. One place for the sessions run
 * here and those followed on another worker (remote-prompt-end.ts).
 */
export function sendIdle(
  link: ClientLink,
  sessionId: string,
  startTime: string,
  idle: SessionEvent,
): void {
  const assistantIdle = assistantIdleBefore(idle);
  if (assistantIdle !== undefined) {
    link.notify(ServerToClient.sessionEvent, { sessionId, event: assistantIdle });
  }
  link.notify(ServerToClient.sessionEvent, { sessionId, event: idleOnWire(idle) });
  link.notify(ServerToClient.sessionLifecycle, {
    type: "session.updated",
    sessionId,
    metadata: { startTime, modifiedTime: idle.timestamp },
  });
}

/**
 * `session.idle` as the Copilot SDK reads it: its `IdleData` is `{aborted?: boolean}`, "true when
 * the preceding agentic loop was cancelled via abort signal"; our `stopReason` stays beside it.
 */
function idleOnWire(event: SessionEvent): SessionEvent {
  if (event.type === "session.idle" && event.data.stopReason === "cancelled") {
    return { ...event, data: { ...event.data, aborted: true } };
  }
  return event;
}
