/**
 * The next turn of the event loop: what was read with the current message has been handled, and
 * an answer returned by a handler that has just ended has been written.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The opens of sessions a face has in progress (ACP `session/load` and `session/resume`, the SDK
 * server's `session.resume`), by session id, so that a request about a session being opened waits
 * for that open instead of finding no session. A client may send a load and a prompt for the same
 * session together, without waiting for the load's answer: the prompt must then run once the
 * load has answered, or fail with the load's own error (the same rule for every request about the
 * session). Opens of one id run one after another.
 *
 * Requests are ordered by when they call {@link open} or {@link settled}: a face calls them
 * synchronously when its handler starts. The SDK server's dispatcher starts handlers in the order
 * the messages were read (server/connection.ts); so does the ACP face, whose input hands the ACP
 * SDK's connection a request only once the one before it has reached its handler (acp/framing.ts),
 * so a request read after a load starts after it. A
 * face may also {@link hold} them (ACP: until a cancelled prompt's answer, or {@link answerFirst}:
 * until a change of settings is answered).
 */
export class OpeningGate {
  /**
   * The latest open of each id still in progress (it runs after the ones before it), and the
   * promise that settles after it, on which both the requests that wait for it and the next open
   * of the id wait: their callbacks run in the order they were registered, so a request that
   * waited for an open runs before an open that came after it (a prompt read before a second
   * load has started when that load begins).
   */
  private readonly opens = new Map<string, { run: Promise<unknown>; settled: Promise<void> }>();
  /** The ends {@link hold} was given. */
  private readonly held = new WeakSet<Promise<void>>();

  /**
   * Runs `open` for `sessionId` once every open of it begun before has ended (whatever their
   * outcome) and the requests that waited for them have started; requests that ask
   * {@link settled} meanwhile wait for it.
   * @returns what `open` returns; rejects with what it throws.
   */
  open<T>(sessionId: string, open: () => Promise<T>): Promise<T> {
    const before = this.opens.get(sessionId);
    const run = before === undefined ? open() : before.settled.then(open, open);
    const settled = run.then(() => undefined);
    // Whoever asked for it hears its failure; unasked, it is no unhandled rejection.
    settled.catch(() => undefined);
    const entry = { run, settled };
    this.opens.set(sessionId, entry);
    const forget = () => {
      if (this.opens.get(sessionId) === entry) {
        this.opens.delete(sessionId);
      }
    };
    run.then(forget, forget);
    return run;
  }

  /**
   * Holds the requests about `sessionId` that ask {@link settled} from now on until `end` has
   * settled and the event loop has turned (an answer returned meanwhile is written first): ACP's
   * prompt ending after `session/cancel`, whose answer comes before theirs. Once for each `end`.
   */
  hold(sessionId: string, end: Promise<void>): void {
    if (!this.held.has(end)) {
      this.held.add(end);
      // Its failure is no unhandled rejection: `open` handles its own run's.
      void this.open(sessionId, () => end.then(nextTurn));
    }
  }

  /**
   * Holds the requests about `sessionId` that ask {@link settled} from now on until `answer` has
   * settled, whatever its outcome, and has been written (ACP's `session/set_mode`: a prompt read
   * after it runs in the mode it set, and is answered after it).
   * @returns `answer`.
   */
  answerFirst<T>(sessionId: string, answer: Promise<T>): Promise<T> {
    const ignore = () => undefined;
    this.hold(sessionId, answer.then(ignore, ignore));
    return answer;
  }

  /**
   * `undefined` when no open of `sessionId` is in progress (go on at once); otherwise a promise
   * that resolves once every open of it begun so far has ended, and rejects with the last one's
   * error when it failed.
   */
  settled(sessionId: string): Promise<void> | undefined {
    return this.opens.get(sessionId)?.settled;
  }
}
