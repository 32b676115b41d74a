import type { LeaseGone } from "../session-store.js";

/**
 * Why this process fenced each lease it fenced (by session id, at the epoch the fence raised it
 * to), so that a second follower of the same session here (an app with a prompt waiting beside one
 * that only follows: server/remote-followers.ts, remote-holder-gone.ts) is told the cause the
 * fence saw, not "released" because the first one's fence got there first. Another process's
 * fence stays "released": this one does not know why. At most {@link FENCES_KEPT} are kept.
 */
export const fencedHere = {
  byId: new Map<string, { epoch: number; cause: LeaseGone }>(),
  cause(sessionId: string, epoch: number, seen: LeaseGone | false, fenced: boolean) {
    if (fenced && seen !== false) {
      this.byId.delete(sessionId);
      this.byId.set(sessionId, { epoch, cause: seen });
      const oldest = this.byId.keys().next().value;
      if (this.byId.size > FENCES_KEPT && oldest !== undefined) {
        this.byId.delete(oldest);
      }
      return seen;
    }
    const known = this.byId.get(sessionId);
    return seen === "released" && known?.epoch === epoch ? known.cause : seen;
  },
};

/** How many of this process's fences {@link fencedHere} remembers. */
const FENCES_KEPT = 1000;
