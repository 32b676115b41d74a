/**
 * The queue of `session.send` prompts of one served session: they run one at a time in the order
 * sent (`immediate` ahead of those waiting), and the session's `session.idle` is held until the
 * last of them ended, so one idle answers however many queued sends, as with Copilot (Copilot
 * protocol v3; server-session.ts states the session's wire rules).
 */

import type { SessionEvent } from "../events/events.js";
import { type Job, runSendJob, type SendJobContext } from "./send-job.js";

/** What the queue tells its served session. */
export interface SendQueueOwner {
  /** What each job runs with (send-job.ts). */
  readonly context: SendJobContext;
  /** The prompts waiting behind the running one changed (`pending_messages.modified`). */
  queueChanged(): void;
  /** Sends `session.idle` to the attached apps. */
  sendIdle(idle: SessionEvent): void;
}

export class SendQueue {
  private readonly waiting: Job[] = [];
  private draining: Promise<void> | undefined;
  private controller: AbortController | undefined;
  /** The job {@link drain} is running: what a cancel waits for. */
  private runningJob: Promise<void> | undefined;
  private heldIdle: SessionEvent | undefined;

  constructor(private readonly owner: SendQueueOwner) {}

  /** Whether a prompt runs (or waits for an app) or is queued. */
  get running(): boolean {
    return this.draining !== undefined;
  }

  /** Queues `job`, ahead of those waiting when `immediate`, and runs it in its turn. */
  add(job: Job, immediate: boolean): void {
    this.waiting.splice(immediate ? 0 : this.waiting.length, 0, job);
    if (this.draining === undefined) {
      this.draining = this.drain();
    } else {
      this.owner.queueChanged();
    }
  }

  /** Takes the jobs waiting (none runs after this); @returns them, in queue order. */
  takeWaiting(): Job[] {
    const taken = this.waiting.splice(0);
    if (taken.length > 0) {
      this.owner.queueChanged();
    }
    return taken;
  }

  /** Aborts the running job with `reason`; resolves once it ended (at once when none runs). */
  async cancelRunning(reason: unknown): Promise<void> {
    this.controller?.abort(reason);
    await this.runningJob;
  }

  /** Resolves once the queue is empty and its last job ended (the held idle then sent). */
  drained(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  /**
   * The session went idle: sent at once when no send runs here (another process's prompt ended,
   * idle-lease.ts: no send here waits for this idle), else held until the queue is drained.
   */
  idle(event: SessionEvent): void {
    if (this.draining === undefined) {
      this.owner.sendIdle(event);
    } else {
      this.heldIdle = event;
    }
  }

  private async drain(): Promise<void> {
    try {
      // `await` always yields, so `finally` runs after `this.draining` is set.
      for (let job = this.waiting.shift(); job !== undefined; job = this.waiting.shift()) {
        if (this.heldIdle !== undefined || this.controller !== undefined) {
          this.owner.queueChanged();
        }
        this.runningJob = this.runJob(job);
        await this.runningJob;
        this.runningJob = undefined;
      }
    } finally {
      this.draining = undefined;
      const idle = this.heldIdle;
      this.heldIdle = undefined;
      if (idle !== undefined) {
        this.owner.sendIdle(idle);
      }
    }
  }

  /** One send: prompt hooks, the prompt, and `agentStop` follow-ups. Never throws. */
  private async runJob(job: Job): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    try {
      await runSendJob(this.owner.context, job, controller.signal);
    } finally {
      this.controller = undefined;
    }
  }
}
