import type { LeaseGone } from "../session-store.js";
import type { Database } from "./database.js";

/**
 * Why a worker fenced each lease it fenced (by session id, with the epoch the fence raised it
 * to), so that a second follower of the same session on that worker (an app with a prompt waiting
 * beside one that only follows: server/remote-followers.ts, remote-holder-gone.ts) is told the
 * cause the fence saw, not "released" because the first one's fence got there first. Another
 * worker's fence stays "released": that one does not know why. Kept per worker's database
 * connection ({@link Database}), at most {@link FENCES_KEPT} each.
 */
const fencesOf = new WeakMap<Database, Map<string, { epoch: number; cause: LeaseGone }>>();

/** How many of a worker's fences {@link fencesOf} remembers. */
const FENCES_KEPT = 1000;

/**
 * The cause a withdrawal reports for `sessionId`, whose row read `epoch` before it: `seen` (the
 * lease's own state, `false` while held), remembered when this call `fenced` the lease (raising
 * the epoch by one); when the lease was already released at the epoch this worker's own fence
 * raised it to, the cause that fence saw.
 */
export function withdrawalCause(
  database: Database,
  sessionId: string,
  epoch: number,
  seen: LeaseGone | false,
  fenced: boolean,
): LeaseGone | false {
  let fences = fencesOf.get(database);
  if (fences === undefined) {
    fences = new Map();
    fencesOf.set(database, fences);
  }
  if (fenced && seen !== false) {
    fences.delete(sessionId);
    fences.set(sessionId, { epoch: epoch + 1, cause: seen });
    const oldest = fences.keys().next().value;
    if (fences.size > FENCES_KEPT && oldest !== undefined) {
      fences.delete(oldest);
    }
    return seen;
  }
  const known = fences.get(sessionId);
  return seen === "released" && known?.epoch === epoch ? known.cause : seen;
}
