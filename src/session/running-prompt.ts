/**
 * A session's one running prompt (case 26: one at a time), a prompt or a compaction: its abort
 * controller, which a cancel, the caller's signal and a lost writer lease (session-store.ts
 * `lost`) each stop, and the writer lease it holds while it runs (a lease let go while idle is
 * taken back first: idle-lease.ts).
 */

import { PromptInProgressError } from "./prompt-in-progress.js";
import type { SessionAppender } from "./session-store.js";

export class RunningPrompt {
  #controller: AbortController | undefined;

  constructor(
    private readonly sessionId: string,
    private readonly appender: SessionAppender,
  ) {}

  /** The running prompt's controller; undefined while none runs. */
  get controller(): AbortController | undefined {
    return this.#controller;
  }

  /** @throws PromptInProgressError when a prompt runs. */
  refuseWhileRunning(): void {
    if (this.#controller !== undefined) {
      throw new PromptInProgressError(this.sessionId);
    }
  }

  /** Cancels the running prompt, if any, with `reason` (events/errors.ts `cancelReason`). */
  cancel(reason: unknown): void {
    this.#controller?.abort(reason);
  }

  /**
   * Runs `work` as the session's one running prompt, cancelled by `signal` or {@link cancel}.
   * @throws PromptInProgressError when a prompt is already running.
   */
  async run<T>(
    signal: AbortSignal | undefined,
    work: (controller: AbortController) => Promise<T>,
  ): Promise<T> {
    this.refuseWhileRunning();
    const controller = new AbortController();
    this.#controller = controller;
    // A cancel, or a lost writer lease (session-store.ts: `lost`), stops the prompt.
    const stop = AbortSignal.any([signal, this.appender.lost].filter((s) => s !== undefined));
    const onStop = () => controller.abort(stop.reason);
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) {
      controller.abort(stop.reason);
    }
    let letGo: (() => void) | undefined;
    try {
      // A lease let go while idle is taken back first (idle-lease.ts).
      letGo = await this.appender.hold?.();
      return await work(controller);
    } finally {
      stop.removeEventListener("abort", onStop);
      this.#controller = undefined;
      letGo?.();
    }
  }
}
