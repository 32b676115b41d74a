/**
 * Categories of events that readers share, so that no face keeps its own list: the SDK app's own
 * events, which only the SDK face shows.
 */

import type { SessionEvent, SessionEventType } from "./events.js";

/**
 * Event types about an SDK app's own requests: its external tools, its model and mode switches,
 * its queue and context reports (Copilot's wire events). Only the SDK face shows them; every
 * other reader (the terminal faces, ACP, the session view) skips them with {@link isSdkAppEvent}
 * before its exhaustive switch, so adding such an event touches no other face; ACP sends a name
 * given (`session.title_changed`) as the editor's title (acp/updates.ts). The session model
 * still folds them (the current model comes from `session.model_change`).
 */
const SDK_APP_EVENT_TYPES = [
  "external_tool.requested",
  "external_tool.completed",
  "session.model_change",
  "session.mode_changed",
  "session.usage_info",
  "pending_messages.modified",
  "session.snapshot_rewind",
  "session.title_changed",
  "session.grants_changed",
  "session.shutdown",
] as const satisfies readonly SessionEventType[];

/** The type of an event only the SDK face shows (see {@link isSdkAppEvent}). */
export type SdkAppEventType = (typeof SDK_APP_EVENT_TYPES)[number];

/** The events every face draws in its own way: {@link SessionEvent} less the SDK app's own. */
export type DrawnEvent = Exclude<SessionEvent, { type: SdkAppEventType }>;

const sdkAppEventTypes: ReadonlySet<SessionEventType> = new Set(SDK_APP_EVENT_TYPES);

/** Whether only the SDK face shows `event`; the other faces return before their switch. */
export function isSdkAppEvent(
  event: SessionEvent,
): event is Extract<SessionEvent, { type: SdkAppEventType }> {
  return sdkAppEventTypes.has(event.type);
}
