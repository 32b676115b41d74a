/**
 * The idle clock of one model request (case 20): {@link StallWatchdog.progress} at each sign of
 * life; once `idleTimeoutMs` (ms) pass without one, {@link StallWatchdog.stalled} turns true and
 * `onStall` runs (the attempt aborts its request). The clock is read every quarter of the limit,
 * at least every 10 ms and at most every second.
 */
export class StallWatchdog {
  /** Whether the limit passed without progress. */
  stalled = false;
  #lastProgress = performance.now();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #idleTimeoutMs: number;
  readonly #onStall: () => void;

  constructor(idleTimeoutMs: number, onStall: () => void) {
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#onStall = onStall;
  }

  /** Starts the clock (again from now). */
  start(): void {
    this.#lastProgress = performance.now();
    this.#timer = setInterval(
      () => {
        if (!this.stalled && performance.now() - this.#lastProgress > this.#idleTimeoutMs) {
          this.stalled = true;
          this.#onStall();
        }
      },
      Math.max(10, Math.min(1_000, this.#idleTimeoutMs / 4)),
    );
  }

  /** Records a sign of life: the clock restarts from now. */
  progress(): void {
    this.#lastProgress = performance.now();
  }

  /** Stops the clock for good. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
