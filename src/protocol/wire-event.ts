/**
 * The events `session.event` carries (src/protocol/copilot.ts): the runtime's own
 * (src/events/events.ts), and a few that only the Copilot wire has, which the server makes as it
 * sends (src/server/wire-events.ts) and no log holds. Types only.
 */

import type { SessionEventOf, SessionEventType } from "../events/events.js";

/**
 * Data of the events only the wire carries. `assistant.idle` is Copilot's (ephemeral,
 * `{aborted?}`: "emitted whenever the main agent's processing loop goes idle"), sent before every
 * `session.idle` and before an autopilot continuation's `user.message`. `assistant.reasoning` is
 * Copilot's (persisted in Copilot's log, so not ephemeral; `{content, reasoningId}`), sent before
 * an `assistant.message` with reasoning, live and in `session.getMessages`; `reasoningId` is the
 * message's `messageId`, which its `assistant.reasoning_delta`s also carry as `reasoningId`.
 */
export interface WireOnlyEventData {
  "assistant.idle": { aborted?: boolean };
  "assistant.reasoning": { content: string; reasoningId: string };
}

/** The wire-only events Copilot keeps in its log: never marked ephemeral. */
type PersistedWireOnlyType = "assistant.reasoning";

/** The type of an event on the wire: the runtime's, or a wire-only one. */
export type WireEventType = SessionEventType | keyof WireOnlyEventData;

/** An event of type `T` as `session.event` carries it; wire-only events but `assistant.reasoning` are ephemeral. */
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
      } & (T extends PersistedWireOnlyType ? { ephemeral?: undefined } : { ephemeral: true })
    : never;

/** Any event `session.event` carries. */
export type WireEvent = { [T in WireEventType]: WireEventOf<T> }[WireEventType];
