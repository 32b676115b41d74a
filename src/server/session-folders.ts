/**
 * The folder a `session.create` or `session.resume` names (`workingDirectory`), checked before
 * anything is written (session-opening.ts).
 */

import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { sameFolder } from "../session/paths.js";
import { elsewhereAdvice, folderElsewhereIn } from "../session/session-folder.js";
import type { ServerContext } from "./connection.js";
import { invalidParams } from "./params.js";

/**
 * A session keeps its folder (session/session-folder.ts, as ACP `session/load` and `-p --resume
 * --cwd`): a `workingDirectory` naming another is `-32602` naming both, before anything is
 * written. Judged from the served session, else its log (an unknown id: opening it reports that).
 */
export async function checkResumeFolder(
  server: ServerContext,
  sessionId: string,
  requested: string | undefined,
): Promise<void> {
  if (requested === undefined) {
    return;
  }
  const cwd = resolve(server.host.config.cwd.value, requested);
  const served = server.sessions.get(sessionId)?.session;
  const folder =
    served === undefined
      ? folderElsewhereIn(
          (await server.host.readEvents(sessionId).catch(() => undefined))?.events ?? [],
          cwd,
        )
      : sameFolder(served.cwd, cwd)
        ? undefined
        : served.cwd;
  if (folder !== undefined) {
    const reopen = "resume it with that workingDirectory (or none)";
    const advice = elsewhereAdvice(sessionId, folder, { cwd, reopen, fresh: "create" });
    throw invalidParams(`session.resume: workingDirectory ${cwd}: ${advice}`);
  }
}

/**
 * The folder of a `session.create`: `requested` against the server's folder.
 * @throws `-32602` when it is not a directory.
 */
export async function workingDirectory(
  server: ServerContext,
  requested: string | undefined,
): Promise<string> {
  const cwd = resolve(server.host.config.cwd.value, requested ?? ".");
  const info = await stat(cwd).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw invalidParams(`session.create: workingDirectory ${cwd} is not a directory`);
  }
  return cwd;
}
