/**
 * Whether a session is gone from its store: what a follower of a session another worker holds
 * (issue 22) checks when what it sent found nothing to reach, to say the session was deleted
 * rather than that it could not be opened (the SDK server's remote-sessions.ts, ACP's
 * acp/deleted-sessions.ts).
 */

import { errorCode } from "../events/errors.js";
import type { SessionStore } from "./session-store.js";

/**
 * Whether `store` has no session `sessionId`: reading it fails with `ENOENT` (deleted, or never
 * made). Any other failure (the database away) is not that: `false`. Never throws.
 */
export function storeHasNo(store: Pick<SessionStore, "read">, sessionId: string): Promise<boolean> {
  return store.read(sessionId).then(
    () => false,
    (error: unknown) => errorCode(error) === "ENOENT",
  );
}
