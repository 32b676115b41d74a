/**
 * A follower's permission handler, registered with the worker that holds the session (issue 22;
 * server/remote-sessions.ts, acp/remote-session.ts): the owner asks its permission questions only
 * when some client can answer them, and counts a follower's handler only while the follower
 * renews its registration.
 */

import { randomUUID } from "../events/random-id.js";
import type { SessionInbox } from "./session-store.js";

/**
 * How long the owner counts a follower's permission handler after its last `attach` (ms), and
 * how often a follower renews it (ms): a follower that dies stops counting within the expiry.
 */
export const FOLLOWER_EXPIRY_MS = 10_000;
const FOLLOWER_RENEWAL_MS = 3_000;

/**
 * Tells the owner (an `attach` in the inbox, renewed every {@link FOLLOWER_RENEWAL_MS}) that this
 * follower can answer its questions, so it asks (issue 22). @returns once the first `attach` is
 * stored, what stops the renewals and sends the `detach`.
 */
export async function registerHandler(
  inbox: SessionInbox,
  sessionId: string,
): Promise<() => Promise<void>> {
  const followerId = randomUUID();
  const attach = () =>
    inbox
      .post(sessionId, { kind: "attach", payload: { followerId, expiresInMs: FOLLOWER_EXPIRY_MS } })
      .catch(() => false);
  // Awaited: the owner reads the registration before any prompt this client sends.
  await attach();
  const renewal = setInterval(() => void attach(), FOLLOWER_RENEWAL_MS);
  renewal.unref();
  return async () => {
    clearInterval(renewal);
    await inbox.post(sessionId, { kind: "detach", payload: { followerId } }).catch(() => false);
  };
}
