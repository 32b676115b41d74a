/**
 * The owner of a session an editor only follows over ACP (acp/remote-session.ts: no prompt of the
 * editor's waits) is gone (session/followed-leases.ts): its lease is fenced as for a waiting
 * prompt, what it stored is delivered, and, once, when it was running a prompt (another client's,
 * whose start the editor saw), the editor is told why it ended unfinished as turnloop's notice
 * "Prompt interrupted" (notices.ts: a `notice`, or a thought to a client that offers none; ACP v1
 * has no other way to say it outside a prompt's answer), in the wording of the prompt case
 * (session/dropped-prompts.ts `interruptedPromptMessage`); when the session was idle, nothing
 * (nobody holds it: the editor's next prompt claims it).
 */

import type { SessionEvent } from "../events/events.js";
import { interruptedPromptMessage } from "../session/dropped-prompts.js";
import { fenceGoneHolder, followedLeases } from "../session/followed-leases.js";
import { PromptEnds } from "../session/prompt-end.js";
import type { SessionInbox } from "../session/session-store.js";
import type { TurnloopNotice } from "./notices.js";

/** What the followed session lends {@link FollowedHolder.watch}. */
export interface HolderWatchParts {
  /** Whether the editor only follows (no prompt of its own waits) and is not told yet. */
  onlyFollowing(): boolean;
  /** Delivers what is stored now. */
  readNow(): Promise<void>;
  /** Notes that the owner is gone (the next prompt claims the session). */
  told(): void;
  /** Sends the editor a notice. */
  say(notice: TurnloopNotice): void;
}

/** Whether the owner of one followed session runs a prompt, and the watch of its lease. */
export class FollowedHolder {
  readonly #sessionId: string;
  readonly #ends = new PromptEnds();

  /** `past`: the events read before following, in log order. */
  constructor(sessionId: string, past: readonly SessionEvent[]) {
    this.#sessionId = sessionId;
    for (const event of past) {
      this.#ends.read(event);
    }
  }

  /** Reads one stored event, in log order. */
  read(event: SessionEvent): void {
    this.#ends.read(event);
  }

  /** Checks the owner's lease with every followed session's. @returns what stops it. */
  watch(inbox: SessionInbox, parts: HolderWatchParts): () => void {
    return followedLeases(inbox).watch({
      sessionId: this.#sessionId,
      watching: () => parts.onlyFollowing(),
      onGone: () => this.#gone(inbox, parts).catch(() => undefined),
    });
  }

  async #gone(inbox: SessionInbox, parts: HolderWatchParts): Promise<void> {
    const cause = await fenceGoneHolder(inbox, this.#sessionId, parts.readNow);
    if (cause === undefined || !parts.onlyFollowing()) {
      return;
    }
    parts.told();
    if (this.#ends.promptOpen) {
      const text = interruptedPromptMessage(this.#sessionId, "followed", cause);
      parts.say({ severity: "error", title: "Prompt interrupted", text });
    }
  }
}
