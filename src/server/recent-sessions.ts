/**
 * Session ids a server remembers something of for the words of a later method naming them (an
 * app detached the session, or deleted it: connection.ts `ServerContext`), kept for the last
 * {@link RECENT_SESSIONS_KEPT} ids only, so that a server's memory does not grow with every
 * detach or delete of its life. An app reads those words from the calls it makes right after
 * (its next send, getMessages, resume); an id forgotten after that many later ones gets the words
 * of a session not open here, which stay true.
 */

/** How many ids each record keeps, the most recently noted ones (an id noted again is renewed). */
export const RECENT_SESSIONS_KEPT = 1_000;

/** A bounded set of session ids: the {@link RECENT_SESSIONS_KEPT} most recently added. */
export class RecentSessions {
  /** In the order added (a `Set` keeps insertion order): the oldest first, dropped first. */
  readonly #ids = new Set<string>();
  readonly #kept: number;

  /** @param kept how many ids are kept (a whole number ≥ 1). */
  constructor(kept = RECENT_SESSIONS_KEPT) {
    this.#kept = kept;
  }

  /** Notes `sessionId` as the most recent, forgetting the oldest beyond the bound. */
  add(sessionId: string): void {
    this.#ids.delete(sessionId);
    this.#ids.add(sessionId);
    for (const oldest of this.#ids) {
      if (this.#ids.size <= this.#kept) {
        break;
      }
      this.#ids.delete(oldest);
    }
  }

  has(sessionId: string): boolean {
    return this.#ids.has(sessionId);
  }

  /** Forgets `sessionId` (it was made or resumed again). */
  delete(sessionId: string): void {
    this.#ids.delete(sessionId);
  }

  /** How many ids are kept now (at most the bound). */
  get size(): number {
    return this.#ids.size;
  }
}
