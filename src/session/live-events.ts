/**
 * The ephemeral events of a session that its holder sends to the workers following it (issue
 * 22): what an app on the holder sees that no stored event tells and a follower cannot derive
 * (remote-followers.ts derives `session.idle`, `assistant.idle` and `session.usage_info` from the
 * stored events). Which, and why not the others:
 * - sent: `pending_messages.modified` (the holder's queue of prompts changed: only the holder
 *   knows it) and `session.mcp_server_status_changed` (its MCP servers' state), each rare;
 * - not sent: the streams (`assistant.message_delta`, `assistant.reasoning_delta`,
 *   `tool.execution_partial_result`), whose whole arrives stored (the message, the result), and
 *   the per-call notes (`assistant.tool_call_start`, `tool.execution_running`,
 *   `tool.execution_progress`), whose call arrives stored (`tool.execution_start`, its result):
 *   each would cost the holder a database round trip per delta or per call, for every session
 *   whether followed or not (README, "A session on another worker": they stay on the holder).
 */

import type { SessionEvent, SessionEventType } from "../events/events.js";

/** The ephemeral event types a holder sends to its followers (see above). */
export const FOLLOWED_LIVE_TYPES: ReadonlySet<SessionEventType> = new Set([
  "pending_messages.modified",
  "session.mcp_server_status_changed",
]);

/**
 * A store's channel for {@link FOLLOWED_LIVE_TYPES} events between workers, and for the deletion
 * of a session (the followers' apps are told at once: the Copilot SDK's `session.lifecycle`
 * `session.deleted`) (PostgreSQL: NOTIFY).
 */
export interface LiveEvents {
  /**
   * Sends `event` of `sessionId` to every other worker following it. Never throws nor waits: one
   * that cannot be sent (the database away, too long for a notification) is that event lost.
   */
  publish(sessionId: string, event: SessionEvent): void;
  /**
   * Calls `onEvent` with each event another worker publishes for `sessionId`, in the order they
   * arrive, and `onDeleted` when another worker (or process) deletes the session, or it is found
   * deleted when listening starts or starts again, until the returned function is called.
   * `onDeleted` may be called more than once.
   */
  listen(
    sessionId: string,
    onEvent: (event: SessionEvent) => void,
    onDeleted: () => void,
  ): () => void;
}
