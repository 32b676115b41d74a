/**
 * Whether a `session/load` or `session/resume` follows a session another live worker holds (issue
 * 22, remote-session.ts) or opens it here.
 */

import { hostname } from "node:os";
import type { LeaseHolder } from "../session/session-store.js";
import { sessionNotFound } from "./errors.js";
import { AcpRemoteSession, type RemoteSessionContext } from "./remote-session.js";

/**
 * `session/load` (`replay`) or `session/resume` of a session another live worker holds: follows
 * it (remote-session.ts); `onDeleted` is called when another worker or app deletes it meanwhile.
 * @returns `undefined` when it is not held by another worker (the store has no inbox, nobody holds
 * it, or this process does): open it here.
 * @throws `-32002` when the session cannot be read (the same as opening an unknown one).
 */
export async function followElsewhere(
  context: RemoteSessionContext,
  sessionId: string,
  replay: boolean,
  onDeleted: () => void,
): Promise<AcpRemoteSession | undefined> {
  const { store } = context.host;
  if (store.inbox === undefined) {
    return undefined;
  }
  const holder = await store.holder(sessionId).catch(() => undefined);
  if (!heldElsewhere(holder)) {
    return undefined;
  }
  try {
    const log = await store.read(sessionId);
    return await AcpRemoteSession.follow(context, sessionId, log, { replay, onDeleted });
  } catch {
    throw sessionNotFound(sessionId, "no log");
  }
}

/** Whether `holder` is a live process other than this one. */
function heldElsewhere(holder: LeaseHolder | "unreadable" | undefined): holder is LeaseHolder {
  return (
    holder !== undefined &&
    holder !== "unreadable" &&
    (holder.pid !== process.pid || holder.hostname !== hostname())
  );
}
