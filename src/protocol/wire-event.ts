/**
 * The events `session.event` carries (src/protocol/copilot.ts): the runtime's own
 * (src/events/events.ts), and a few that only the Copilot wire has, which the server makes as it
 * sends (src/server/wire-events.ts) and no log holds. Types only.
 */

import type { SessionEventOf, SessionEventType } from "../events/events.js";

/**
 * Data of the events only the wire carries. `assistant.idle` is Copilot's (ephemeral,
 * `{aborted?}`: "emitted whenever the main agent's processing loop goes idle"), sent before every
 * `session.idle` and before an autopilot continuation's `user.message`.
 */
export interface WireOnlyEventData {
  "assistant.idle": { aborted?: boolean };
}

/** The type of an event on the wire: the runtime's, or a wire-only one. */
export type WireEventType = SessionEventType | keyof WireOnlyEventData;

/** An event of type `T` as `session.event` carries it; wire-only events are always ephemeral. */
export type WireEventOf<T extends WireEventType> = T extends SessionEventType
  ? SessionEventOf<T>
  : T extends keyof WireOnlyEventData
    ? {
        type: T;
        data: WireOnlyEventData[T];
        /** UUID. */
        id: string;
        /** ISO-8601 with ms. */
        timestamp: string;
        /** Id of the last persisted event before it. */
        parentId: string | null;
        ephemeral: true;
      }
    : never;

/** Any event `session.event` carries. */
export type WireEvent = { [T in WireEventType]: WireEventOf<T> }[WireEventType];
