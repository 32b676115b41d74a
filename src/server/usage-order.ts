/**
 * Copilot's order of a model reply's events on the SDK wire (the Copilot CLI's, as observed over
 * the SDK: `session.usage_info` at the turn's start, `assistant.usage` just before the
 * `assistant.message` it is about; README, "What works, as the Copilot CLI does it"): turnloop's
 * log records the reply's message first and its usage right after it (agent/model-turn.ts
 * `reply`), so the wire holds a finished reply's `assistant.message` (not an interrupted one,
 * which no usage follows) until its usage, and the usage info derived from it, were sent. One
 * rule for the owner's clients (server-session.ts) and a follower's (remote-events.ts).
 */

import type { SessionEvent } from "../events/events.js";

/** What is held when nothing is: one empty list, so that an event that passes allocates none. */
const NOTHING_HELD: never[] = [];

/** Reorders what is sent for each event, in log order; `Item` is whatever the face sends. */
export class UsageBeforeReply<Item> {
  #held: Item[] | undefined;

  /**
   * Whether {@link order} may change what is sent for `event`: a reply's message or usage, or
   * anything while a message is held. Most events (every streamed delta) pass by without it.
   */
  reorders(event: SessionEvent): boolean {
    return (
      this.#held !== undefined ||
      event.type === "assistant.message" ||
      event.type === "assistant.usage"
    );
  }

  /**
   * What to send now for `event`, whose own items are `items`: nothing for a finished reply's
   * message (held); its items then the held message for `assistant.usage`; `session.usage_info`'s
   * as they are (it goes before the usage); for any other event the held message first, if any.
   */
  order(event: SessionEvent, items: Item[]): Item[] {
    if (event.type === "session.usage_info") {
      return items;
    }
    const held = this.#held ?? NOTHING_HELD;
    this.#held = undefined;
    if (event.type === "assistant.message" && event.data.interrupted !== true) {
      this.#held = items;
      return held;
    }
    if (event.type === "assistant.usage") {
      return [...items, ...held];
    }
    return held.length === 0 ? items : [...held, ...items];
  }

  /** What is held, to send now (the session goes idle or stops), and nothing held after. */
  flush(): Item[] {
    const held = this.#held ?? NOTHING_HELD;
    this.#held = undefined;
    return held;
  }
}

/**
 * `events` as an app received them, in the log's order: each `assistant.usage` sent just before
 * its reply's `assistant.message` ({@link UsageBeforeReply}) moved after it; nothing else moves.
 * For readers that compare what the wire told with the log (tests, bench/log-check.mjs).
 * @returns a new array; `events` is left as it was.
 */
export function inLogOrder<Event extends { type: string }>(events: readonly Event[]): Event[] {
  const ordered = [...events];
  for (let index = 0; index + 1 < ordered.length; index++) {
    const usage = ordered[index];
    const reply = ordered[index + 1];
    if (usage?.type === "assistant.usage" && reply?.type === "assistant.message") {
      ordered[index] = reply;
      ordered[index + 1] = usage;
      index++;
    }
  }
  return ordered;
}
