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

// Not an ES module import: its facade loads Node's file streams (face-config.ts says why).
const { statSync } = process.getBuiltinModule("node:fs");

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

/**
 * The words every face ends its refusal with when session `sessionId`, asked for in `cwd`, works
 * in `folder`: `session <id> works in <folder>; <reopen>, or start a new session in <cwd>`, where
 * `reopen` is the face's way to reopen it in its own folder. When that folder is gone (not an
 * existing directory here), reopening it there cannot work: it says so, and that the folder must
 * be created or restored first.
 */
export function elsewhereAdvice(
  sessionId: string,
  folder: string,
  { cwd, reopen, fresh = "start" }: { cwd: string; reopen: string; fresh?: string },
): string {
  const freshly = `${fresh} a new session in ${cwd}`;
  return isDirectory(folder)
    ? `session ${sessionId} works in ${folder}; ${reopen}, or ${freshly}`
    : `session ${sessionId} works in ${folder}, which is not an existing directory here; create or restore it, then ${reopen}; or ${freshly}`;
}

function isDirectory(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** What a command line (`-p` or the interactive face) says when `--cwd` names another folder. */
export function cwdElsewhereMessage(sessionId: string, cwd: string, folder: string): string {
  return `--cwd ${cwd}: ${elsewhereAdvice(sessionId, folder, { cwd, reopen: "resume it without --cwd" })}`;
}
