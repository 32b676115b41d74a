/** A session's log as the reading commands show it, with whether anything still writes it. */

import type { SessionStore, StoredLog } from "../session/session-store.js";

/**
 * `sessionId`'s log, and whether it has no live writer (the store's `holder`, asked before and
 * after the read, found none either time: a writer that opens the session meanwhile is seen).
 * Reading never writes: a prompt its ended process left open is only said interrupted.
 */
export async function readWithWriter(
  store: SessionStore,
  sessionId: string,
): Promise<StoredLog & { processEnded: boolean }> {
  const noWriter = async () =>
    (await store.holder(sessionId).catch(() => "unreadable")) === undefined;
  const before = await noWriter();
  const log = await store.read(sessionId);
  return { ...log, processEnded: before && (await noWriter()) };
}
