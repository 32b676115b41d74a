/**
 * The rule every face applies when a session is reopened for a given folder: a session keeps the
 * folder it was created in (its tools, files and grants belong to it), so reopening it for
 * another is refused before anything is written. `-p --resume`, the interactive
 * `turnloop --resume` (each with `--cwd`) and ACP `session/load` / `session/resume` (whose `cwd`
 * is required; ACP v1 session-setup: a session's `cwd` does not change) all ask this one check.
 */

import type { SessionEvent } from "../events/events.js";
import type { SessionHost } from "./host.js";
import { sameFolder } from "./paths.js";

/**
 * The folder session `sessionId` works in, when that is not `cwd` (the same folder by path or,
 * through symbolic links, by real path: paths.ts `sameFolder`), read from the session list's
 * metadata without opening the session. `undefined` when it works in `cwd`, or when its folder
 * is unknown (no such session: opening it reports that).
 */
export async function folderElsewhere(
  host: Pick<SessionHost, "list">,
  sessionId: string,
  cwd: string,
): Promise<string | undefined> {
  const folder = (await host.list()).find((session) => session.sessionId === sessionId)?.cwd;
  return folder === undefined || folder === null || sameFolder(folder, cwd) ? undefined : folder;
}

/**
 * {@link folderElsewhere} from a log already read (`events`, its `session.start` first): the
 * folder it works in when that is not `cwd`; `undefined` when it is, or the log has no start.
 */
export function folderElsewhereIn(
  events: readonly SessionEvent[],
  cwd: string,
): string | undefined {
  const start = events.find((event) => event.type === "session.start");
  const folder = start?.type === "session.start" ? start.data.cwd : undefined;
  return folder === undefined || sameFolder(folder, cwd) ? undefined : folder;
}

/** What a command line (`-p` or the interactive face) says when `--cwd` names another folder. */
export function cwdElsewhereMessage(sessionId: string, cwd: string, folder: string): string {
  return `--cwd ${cwd}: session ${sessionId} works in ${folder}; resume it without --cwd, or start a new session in ${cwd}`;
}
