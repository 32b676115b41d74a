/**
 * The holder of a session followed here is gone (issue 22; session/followed-leases.ts) while
 * apps of this server only follow it, none of their own prompts waiting (those are told by their
 * own owner watch: remote-followers.ts `watchPrompts`). Its lease is fenced as for a waiting prompt
 * (the inbox's `withdraw`, which says why the holder is gone), what it stored is delivered, and
 * each such app is told once: when the log shows a prompt started and not ended (another client's,
 * which the app saw start), a `session.error` in the wording of the prompt case
 * (session/dropped-prompts.ts `interruptedPromptMessage`), then `session.idle`, as a local
 * session's apps get a failed prompt's end; when the session was idle, nothing (nobody holds it:
 * the next resume or prompt claims it). Once told, an app's next prompt claims the session, and
 * the claim's closing of the interrupted turn is not told again (prompt-end.ts
 * `SentPrompts.ownerGone`).
 */

import { idleData } from "../events/idle.js";
import { ServerToClient } from "../protocol/copilot.js";
import { interruptedPromptMessage } from "../session/dropped-prompts.js";
import { createEnvelope } from "../session/envelope.js";
import { fenceGoneHolder, followedLeases } from "../session/followed-leases.js";
import type { LeaseGone, SessionInbox } from "../session/session-store.js";
import { sendIdle } from "./client-link.js";
import type { ServerContext } from "./connection.js";
import { notificationFrame } from "./notification-text.js";
import type { FollowedHere, Follower } from "./remote-followers.js";

/** Checks the lease of `here` with every session this server follows. @returns what stops it. */
export function watchHolder(server: ServerContext, here: FollowedHere): () => void {
  const { inbox } = server.host.store;
  if (inbox === undefined) {
    return () => undefined;
  }
  return followedLeases(inbox).watch({
    sessionId: here.session.sessionId,
    watching: () => onlyFollowing(here).length > 0,
    onGone: () => holderGone(inbox, here).catch(() => undefined),
  });
}

/** The followers of `here` with no prompt waiting, not told yet that the holder is gone. */
function onlyFollowing(here: FollowedHere): Follower[] {
  return [...here.followers.values()].filter(
    ({ prompts }) => !prompts.waiting && !prompts.ownerClosed,
  );
}

/** Fences the gone holder's lease, delivers what it stored, then tells each follower once. */
async function holderGone(inbox: SessionInbox, here: FollowedHere): Promise<void> {
  const { sessionId } = here.session;
  const subscription = await here.subscribed;
  const cause = await fenceGoneHolder(inbox, sessionId, () => subscription.readNow());
  if (cause === undefined) {
    return; // A live worker holds it (another claimed it): its followers read the claim.
  }
  tellOnlyFollowing(here, cause);
}

/**
 * Tells each app of `here` that only follows it (none of its prompts waiting), once, that its
 * holder is gone for `cause`, every event the holder stored delivered first: by this watch, or by
 * the owner watch of an app of `here` whose prompt waited (remote-followers.ts), whichever saw
 * the death first, so that every app of the session here is told at the death.
 */
export function tellOnlyFollowing(here: FollowedHere, cause: LeaseGone): void {
  const { session } = here;
  const { sessionId } = session;
  const followers = onlyFollowing(here);
  for (const { prompts } of followers) {
    prompts.ownerGone();
  }
  if (followers.length === 0 || !here.ends.promptOpen) {
    return;
  }
  const message = interruptedPromptMessage(sessionId, "followed", cause);
  const error = createEnvelope(
    { type: "session.error", data: { errorType: "server", message } },
    null,
  );
  const frame = notificationFrame(ServerToClient.sessionEvent, { sessionId, event: error });
  const connections = followers.map(({ connection }) => connection);
  for (const connection of connections) {
    connection.notifyFrame(frame);
  }
  const idle = createEnvelope({ type: "session.idle", data: idleData({ error }) }, null);
  sendIdle(connections, sessionId, session.startTime, idle, session.promptMode);
}
