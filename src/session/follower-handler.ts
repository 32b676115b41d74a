/**
 * A follower's permission handler, registered with the worker that holds the session (issue 22;
 * server/remote-sessions.ts, acp/remote-session.ts): the owner asks its permission questions only
 * when some client can answer them, and counts a follower's handler only while the follower
 * renews its registration.
 */

import { randomUUID } from "../events/random-id.js";
import type { SessionInbox } from "./session-store.js";

/**
 * How long the owner counts a follower's permission handler after its last `attach` (ms), and the
 * longest expiry an owner accepts: a follower that dies stops counting within the expiry. A
 * follower renews its registration every {@link RENEWAL_SHARE} of its expiry (3 s of 10 s).
 */
export const FOLLOWER_EXPIRY_MS = 10_000;
const RENEWAL_SHARE = 0.3;

/**
 * A test-only setting: the follower's expiry in ms, a whole number from 1 to
 * {@link FOLLOWER_EXPIRY_MS}, so that tests which kill a follower with a question open wait less
 * for its owner to stop counting it. Any other value is ignored. Not documented for users.
 */
export const TEST_FOLLOWER_EXPIRY_VARIABLE = "TURNLOOP_TEST_FOLLOWER_EXPIRY_MS";

/** The follower expiry (ms): {@link TEST_FOLLOWER_EXPIRY_VARIABLE}, else {@link FOLLOWER_EXPIRY_MS}. */
export function followerExpiryMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env[TEST_FOLLOWER_EXPIRY_VARIABLE]);
  return Number.isInteger(value) && value > 0 && value <= FOLLOWER_EXPIRY_MS
    ? value
    : FOLLOWER_EXPIRY_MS;
}

/**
 * Tells the owner (an `attach` in the inbox, counted for {@link followerExpiryMs} of `env`,
 * renewed every {@link RENEWAL_SHARE} of it) that this follower can answer its questions, so it
 * asks (issue 22). @returns once the first `attach` is stored, what stops the renewals and sends
 * the `detach`.
 */
export async function registerHandler(
  inbox: SessionInbox,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): Promise<() => Promise<void>> {
  const followerId = randomUUID();
  const expiresInMs = followerExpiryMs(env);
  const attach = () =>
    inbox
      .post(sessionId, { kind: "attach", payload: { followerId, expiresInMs } })
      .catch(() => false);
  // Awaited: the owner reads the registration before any prompt this client sends.
  await attach();
  const renewal = setInterval(() => void attach(), Math.round(expiresInMs * RENEWAL_SHARE));
  renewal.unref();
  return async () => {
    clearInterval(renewal);
    await inbox.post(sessionId, { kind: "detach", payload: { followerId } }).catch(() => false);
  };
}
