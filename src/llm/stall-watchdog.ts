/**
 * The idle clock of one model request (case 20): {@link StallWatchdog.progress} at each sign of
 * life; once `idleTimeoutMs` (ms) pass without one, {@link StallWatchdog.stalled} turns true and
 * `onStall` runs (the attempt aborts its request). The clock is read every quarter of the limit,
 * at least every 10 ms and at most every second.
 *
 * The clock is `process.hrtime` ({@link monotonicMilliseconds}), not the global `performance`,
 * whose first use loads Node's `perf_hooks` and eight modules behind it (issue 26: about 9 M
 * instructions in a bare script, 3 M in a `-p` run; bench/notes/start19.md). The faces' clocks
 * (cli/prompt-command.ts, cli/spinner.ts) read it too.
 */
export class StallWatchdog {
  /** Whether the limit passed without progress. */
  stalled = false;
  #lastProgress = monotonicMilliseconds();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #idleTimeoutMs: number;
  readonly #onStall: () => void;

  constructor(idleTimeoutMs: number, onStall: () => void) {
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#onStall = onStall;
  }

  /** Starts the clock (again from now). */
  start(): void {
    this.#lastProgress = monotonicMilliseconds();
    this.#timer = setInterval(
      () => {
        if (!this.stalled && monotonicMilliseconds() - this.#lastProgress > this.#idleTimeoutMs) {
          this.stalled = true;
          this.#onStall();
        }
      },
      Math.max(10, Math.min(1_000, this.#idleTimeoutMs / 4)),
    );
  }

  /** Records a sign of life: the clock restarts from now. */
  progress(): void {
    this.#lastProgress = monotonicMilliseconds();
  }

  /** Stops the clock for good. */
  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * Milliseconds on Node's monotonic clock (`process.hrtime.bigint()`, nanoseconds from an arbitrary
 * start): for durations, as `performance.now()` is, without loading `perf_hooks`.
 */
export function monotonicMilliseconds(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
