/**
 * The prompt an ACP follower sent to a session another worker holds (remote-session.ts), the
 * ways it ends, and what its end is told with.
 */

import { isDeepStrictEqual } from "node:util";
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import type { PromptEnd } from "../session/prompt-end.js";
import type { PromptRefusal } from "../session/session-store.js";
import { noticeUpdate, promptEndNotice } from "./notices.js";

/** The prompt of this client that the owner runs, until its stored events end. */
export interface RemotePrompt {
  /** The id the owner records on its `user.message` (`promptId`). */
  id: string;
  /** Set once this client cancelled it (`session/cancel`, or the request's own cancel). */
  cancelled: boolean;
  /** Settles once its inbox message was posted, or failed to be: an abort goes after it. */
  posted: Promise<void>;
  settle: (end: FollowedEnd) => void;
}

/**
 * How a follower's prompt ends: as its stored events end ({@link PromptEnd}); with the owner
 * gone before storing it (`ownerGone`, the error's message: owner-watch.ts); or refused by the
 * owner before it stored anything of it (`refused`: session-store.ts `SessionInbox.refuse`); or
 * with the session deleted by another worker or app (`deletedSession`: its id).
 */
export type FollowedEnd =
  | PromptEnd
  | { ownerGone: string }
  | { refused: PromptRefusal }
  | { deletedSession: string };

/**
 * `updates` (a follower's, `notices`: whether its client offered them) of the stored `event` that
 * ended this client's own prompt, without the notice that says how a prompt ended
 * (notices.ts `promptEndNotice`: `✗ error: …`, `⊘ cancelled`, `stopped: …`): the prompt's answer
 * says it, a JSON-RPC error or its `stopReason`, once, as a local prompt's answer does (ACP v1
 * prompt-turn; updates.ts sends that notice only when replaying). Any other update stays.
 */
export function withoutEndNotice(
  updates: acp.SessionUpdate[],
  event: SessionEvent,
  notices: boolean,
): acp.SessionUpdate[] {
  if (
    event.type !== "session.error" &&
    event.type !== "abort" &&
    event.type !== "assistant.turn_end"
  ) {
    return updates;
  }
  const end = promptEndNotice(event);
  if (end === undefined) {
    return updates;
  }
  const told = noticeUpdate(end, notices);
  return updates.filter((update) => !isDeepStrictEqual(update, told));
}
