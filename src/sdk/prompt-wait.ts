/**
 * What `sendAndWait` waits for: the end of its own prompt, among the prompts of every client of
 * the session (several apps may send to one session: the Copilot SDK's multi-client pattern).
 */

import type { SessionEventOf } from "../events/events.js";
import type { WireEvent } from "../protocol/wire-event.js";

/** One `assistant.message`, as `sendAndWait` answers it. */
export type AssistantMessage = SessionEventOf<"assistant.message">;

/**
 * Follows one session's events for the prompt whose `session.send` answered `messageId`: the
 * runtime records that id on the prompt's `user.message` (`promptId`). The answer is the last
 * `assistant.message` between that `user.message` and the next prompt's; the wait ends at the
 * first `session.idle` that comes after the send was answered. The runtime holds `session.idle`
 * until its queue is drained (src/server/send-queue.ts), so that idle ends this prompt, run
 * or dropped by an abort; an earlier one (another client's prompt ending while this send was on
 * its way) is not its end. Events seen before the send is answered are kept and read then.
 *
 * `done` resolves with the answer; with `undefined` when the prompt was aborted (`session.idle`
 * `{aborted: true}`: a message written before the abort, a tool call's, is no answer), never
 * ran, or gave no message, or when its last message broke off mid-stream (`interrupted: true`,
 * with the stream's `error`: the app's `onErrorOccurred` answered `skip` without a retry that
 * finished, and the `session.warning` `model_call_skipped` says so): a broken reply is never
 * given as a whole answer: Copilot's `assistant.message` has no field marking a reply cut off
 * (shared/reference/copilot-protocol.md, event 40), so an app written for it reads `content` as
 * the whole reply. It rejects with the message of a `session.error` of this prompt, or
 * of the last one before an end where it never ran (a prompt dropped unrun, e.g. by an abort on
 * the worker that holds the session, is said so).
 */
export class PromptWait {
  readonly done: Promise<AssistantMessage | undefined>;
  private messageId: string | undefined;
  private readonly early: WireEvent[] = [];
  /** `waiting` until the prompt's `user.message`, `running` until the next prompt's. */
  private stage: "waiting" | "running" | "over" = "waiting";
  private last: AssistantMessage | undefined;
  /** The last `session.error` seen before this prompt started: its own if it never does. */
  private errorWhileWaiting: Error | undefined;
  private resolve: (answer: AssistantMessage | undefined) => void = () => undefined;
  private reject: (error: Error) => void = () => undefined;

  constructor() {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Settled before anyone awaits it (a timeout while `send` is in flight): not "unhandled".
    this.done.catch(() => undefined);
  }

  /** The send was answered with `messageId`: reads the events kept meanwhile, idles excepted. */
  sent(messageId: string): void {
    this.messageId = messageId;
    for (const event of this.early.splice(0)) {
      if (event.type !== "session.idle") {
        this.see(event);
      }
    }
  }

  /** Ends the wait with `error` (a timeout, a closed connection). */
  fail(error: Error): void {
    this.reject(error);
  }

  /** Reads one event of the session. */
  see(event: WireEvent): void {
    if (this.messageId === undefined) {
      this.early.push(event);
      return;
    }
    switch (event.type) {
      case "user.message":
        this.promptStarted(event.data.promptId);
        return;
      case "assistant.message":
        if (this.stage === "running") {
          this.last = event.data.interrupted === true ? undefined : event;
        }
        return;
      case "session.error":
        if (this.stage === "running") {
          this.reject(new Error(event.data.message));
        } else if (this.stage === "waiting") {
          // Another prompt's, unless this one ends unrun (dropped): then it says why.
          this.errorWhileWaiting = new Error(event.data.message);
        }
        return;
      case "session.idle":
        if (this.stage === "waiting" && this.errorWhileWaiting !== undefined) {
          this.reject(this.errorWhileWaiting);
          return;
        }
        this.resolve(
          this.stage === "waiting" || event.data.aborted === true ? undefined : this.last,
        );
        return;
      default:
        return;
    }
  }

  /** A prompt's `user.message`: this one's, or the next one's (a hook's message has no id). */
  private promptStarted(promptId: string | undefined): void {
    if (promptId === this.messageId) {
      this.stage = "running";
      this.last = undefined;
      this.errorWhileWaiting = undefined;
    } else if (promptId !== undefined && this.stage === "running") {
      this.stage = "over";
    }
  }
}
