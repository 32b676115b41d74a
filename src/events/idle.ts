/**
 * The one rule for `session.idle`'s data at the end of a prompt (issue 22), shared by the loop
 * that runs a prompt (agent/loop.ts) and every face that follows a prompt run by another process (session/prompt-end.ts, session/idle-lease.ts,
 * server/remote-sessions.ts): owner and followers send the same idle.
 */

import type { StopReason } from "./event-parts.js";
import type { SessionEventData } from "./events.js";

/**
 * `session.idle`'s data after a prompt that ended with `end`: `{stopReason}` (ACP's names) when
 * it stopped, `{}` when it failed or its end is unknown (the Copilot SDK's `IdleData` has no stop
 * reason; the failure is told by the `session.error` before the idle).
 */
export function idleData(
  end: { stopReason: StopReason } | { error: unknown } | undefined,
): SessionEventData["session.idle"] {
  return end !== undefined && "stopReason" in end ? { stopReason: end.stopReason } : {};
}
