/**
 * The chain rule of a session's log (README, "Where sessions are kept"): each event is chained to
 * the one before it by `parentId`, so an event belongs to the log when its `parentId` names an
 * event read before it (or is `null`, as the `session.start`'s is), its `id` is new, and it is not
 * a second `session.start`. Every reader of a log applies it through one
 * {@link LogChain} per read (event-log-reading.ts for `events.jsonl`, postgres/read.ts for rows,
 * session-metadata.ts for listings), so that a line of another session, a repeated line or two
 * logs joined are skipped and reported as damaged lines are, never folded into the session.
 */

/** Why an event that decoded does not belong to the log. */
export type ChainBreak =
  /** Its `id` is that of an event read before it: a repeated line. */
  | "duplicate_id"
  /** A `session.start` after the log's own: another session's log joined to this one. */
  | "second_start"
  /**
   * Its `parentId` names no event read before it: a line of another session, or one chained to
   * a line skipped for one of these reasons (what follows a skipped line is skipped with it).
   */
  | "unknown_parent";

/** The envelope fields the rule looks at. */
export interface ChainLink {
  type: string;
  id: string;
  parentId: string | null;
}

/** The chain of one read of a log, checked an event at a time in file order. */
export class LogChain {
  readonly #ids = new Set<string>();
  /** An event was taken (or the read began past the log's first line). */
  #started: boolean;
  /**
   * The next event's parent is taken unchecked: the read began past the first line (the events
   * before were read earlier), or the line before was damaged (its id, which a following event
   * of the log names, cannot be read).
   */
  #parentUnchecked: boolean;

  /** @param fromLogStart whether the read begins at the log's first line. */
  constructor(fromLogStart = true) {
    this.#started = !fromLogStart;
    this.#parentUnchecked = !fromLogStart;
  }

  /** A line that did not decode: the next event may name it as its parent. */
  damaged(): void {
    this.#parentUnchecked = true;
  }

  /**
   * Checks `event`, the next event read, and takes it into the chain when it belongs.
   * @returns why it does not belong, or `undefined` when it does.
   */
  admit(event: ChainLink): ChainBreak | undefined {
    if (this.#ids.has(event.id)) {
      return "duplicate_id";
    }
    if (event.type === "session.start" && this.#started) {
      return "second_start";
    }
    // `null` claims no place in the chain (tests, tools writing logs by hand): nothing to check.
    const parentKnown = event.parentId === null || this.#ids.has(event.parentId);
    if (!parentKnown && !this.#parentUnchecked) {
      return "unknown_parent";
    }
    this.#ids.add(event.id);
    this.#started = true;
    this.#parentUnchecked = false;
    return undefined;
  }
}
