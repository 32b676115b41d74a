/**
 * The live events an owner publishes for a session followed here (session/live-events.ts), each
 * sent to the followers right after the stored event it followed on the owner (its `parentId`:
 * the last stored event when it was emitted), as the owner's own apps got it: one whose stored
 * event was just sent goes at once; one whose stored event is not read yet waits for it (read at
 * once: it was committed before the live event was sent); one whose stored event went out before
 * others (they were read before its notification came) goes at once, as close as it can.
 */

import type { SessionEvent } from "../events/events.js";

/** How many of the last stored events sent are remembered, to place a live event after its own. */
const RECENT_STORED = 64;

export class FollowedLiveEvents {
  /** Live events not sent yet, in the order they came. */
  readonly #waiting: SessionEvent[] = [];
  /** The ids of the last stored events sent, oldest first. */
  readonly #recent: string[] = [];
  readonly #send: (event: SessionEvent) => void;
  readonly #readNow: () => Promise<void>;
  #reading: Promise<void> = Promise.resolve();

  /**
   * @param send sends a live event to every follower.
   * @param readNow reads and sends the stored events committed now (the subscription's).
   */
  constructor(send: (event: SessionEvent) => void, readNow: () => Promise<void>) {
    this.#send = send;
    this.#readNow = readNow;
  }

  /** A stored event was sent to the followers: the live events that followed it go now. */
  stored(event: SessionEvent): void {
    this.#recent.push(event.id);
    if (this.#recent.length > RECENT_STORED) {
      this.#recent.shift();
    }
    this.#sendPlaced();
  }

  /** A live event came from the owner. */
  live(event: SessionEvent): void {
    this.#waiting.push(event);
    this.#sendPlaced();
    if (this.#waiting.length === 0) {
      return;
    }
    // Its stored event is not read here yet: read it; what is left after that goes anyway.
    this.#reading = this.#reading
      .then(() => this.#readNow())
      .catch(() => undefined)
      .then(() => {
        for (const waiting of this.#waiting.splice(0)) {
          this.#send(waiting);
        }
      });
  }

  /** Sends the waiting live events, in order, while the first one's stored event was sent. */
  #sendPlaced(): void {
    for (let first = this.#waiting[0]; first !== undefined; first = this.#waiting[0]) {
      const parent = first.parentId;
      if (parent !== null && !this.#recent.includes(parent)) {
        return;
      }
      this.#waiting.shift();
      this.#send(first);
    }
  }
}
