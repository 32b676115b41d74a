/**
 * The prompt an ACP follower sent to a session another worker holds (remote-session.ts), and the
 * ways it ends. Types only.
 */

import type { PromptEnd } from "../session/prompt-end.js";
import type { PromptRefusal } from "../session/session-store.js";

/** The prompt of this client that the owner runs, until its stored events end. */
export interface RemotePrompt {
  /** The id the owner records on its `user.message` (`promptId`). */
  id: string;
  /** Set once the owner stored its `user.message`. */
  started: boolean;
  settle: (end: FollowedEnd) => void;
}

/**
 * How a follower's prompt ends: as its stored events end ({@link PromptEnd}); with the owner
 * gone before storing it (`ownerGone`, the error's message: owner-watch.ts); or refused by the
 * owner before it stored anything of it (`refused`: session-store.ts `SessionInbox.refuse`).
 */
export type FollowedEnd = PromptEnd | { ownerGone: string } | { refused: PromptRefusal };
