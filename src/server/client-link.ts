/**
 * The app's connection as a server session sees it, and what the session sends over it at the end
 * of a send (Copilot protocol v3: `session.event` with `session.idle`, then `session.lifecycle`).
 */

import type { SessionEvent } from "../events/events.js";
import { ServerToClient } from "../protocol/copilot.js";
import { notificationFrame } from "./notification-text.js";
import { assistantIdleBefore } from "./wire-events.js";

/** The connection a session's notifications and hook calls go to. */
export interface ClientLink {
  notify(method: string, params: object): void;
  /**
   * Sends a notification already framed for the wire (notification-text.ts `notificationFrame`):
   * a session with several apps attached encodes each event once and hands every app the frame.
   */
  notifyFrame(frame: string): void;
  /** @throws when the connection closes, `signal` aborts or `timeoutMs` passes first. */
  request(
    method: string,
    params: object,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<unknown>;
}

/**
 * Tells the apps `links` that the session is idle: Copilot's ephemeral `assistant.idle`
 * (wire-events.ts), the held `session.idle` (as the Copilot SDK reads it, with the `mode` of
 * `promptMode`), then `session.lifecycle` `session.updated` with the session's start and modified
 * times; each encoded once for all of them. One place for the sessions run here and those followed
 * on another worker (remote-prompt-end.ts). `promptMode`: the `agentMode` of the last prompt's
 * `user.message` (session/send-job.ts records it), if any.
 */
export function sendIdle(
  links: Iterable<ClientLink>,
  sessionId: string,
  startTime: string,
  idle: SessionEvent,
  promptMode: string | undefined,
): void {
  const assistantIdle = assistantIdleBefore(idle);
  const frames = [
    ...(assistantIdle === undefined
      ? []
      : [notificationFrame(ServerToClient.sessionEvent, { sessionId, event: assistantIdle })]),
    notificationFrame(ServerToClient.sessionEvent, {
      sessionId,
      event: idleOnWire(idle, promptMode),
    }),
    notificationFrame(ServerToClient.sessionLifecycle, {
      type: "session.updated",
      sessionId,
      metadata: { startTime, modifiedTime: idle.timestamp },
    }),
  ];
  for (const link of links) {
    for (const frame of frames) {
      link.notifyFrame(frame);
    }
  }
}

/**
 * `session.idle` as the Copilot SDK reads it: its `IdleData` is `{aborted?: boolean, mode?:
 * "interactive" | "plan" | "autopilot"}` ("true when the preceding agentic loop was cancelled via
 * abort signal"; `mode` since CLI 1.0.85, the agent mode of the prompt that ran, `interactive`
 * when none: copilot-protocol.md §2.1, §2.4); our `stopReason` stays beside them.
 */
function idleOnWire(event: SessionEvent, promptMode: string | undefined): SessionEvent {
  if (event.type !== "session.idle") {
    return event;
  }
  const mode = promptMode === "plan" || promptMode === "autopilot" ? promptMode : "interactive";
  const aborted = event.data.stopReason === "cancelled" ? { aborted: true } : {};
  return { ...event, data: { ...event.data, ...aborted, mode } };
}

/** The prompt mode (see {@link sendIdle}) once `event` is told: a prompt's `user.message` sets it. */
export function promptModeAfter(event: SessionEvent, promptMode: string | undefined) {
  return event.type === "user.message" && event.data.source !== "autopilot"
    ? event.data.agentMode
    : promptMode;
}
