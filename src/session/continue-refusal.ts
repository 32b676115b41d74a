/**
 * What `--continue` says when the folder's newest session is open in another process (a terminal
 * of the same folder runs it), for `-p` and the interactive session alike; loaded only then.
 *
 * `--continue` keeps meaning "the folder's newest session": Claude Code's `claude -c` and Codex's
 * `codex resume --last` pick the newest conversation the same way, with no lock, so a second
 * terminal's prompt lands in the conversation the first is writing. turnloop lets one process
 * write a session (session-lock.ts), and does not put the prompt into an older conversation the
 * user did not name either (its answer would come from that one's context, and the prompt would
 * stay in it): it refuses, writing nothing, and names the ways on: the other process, a new
 * session, or `--resume` of the newest session nobody has open, with its title and last activity.
 */

import type { SessionHost } from "./host.js";
import type { SessionLockedError } from "./session-locked-error.js";
import { LOST_PROMPT_WORDS } from "./session-store.js";

/** Sessions of the folder checked for a holder at most, newest first (each check reads a lock). */
const CHECKED_SESSIONS = 20;

/**
 * The refusal of `--continue` in `cwd` whose newest session `error` says is held: the lock's
 * message (which process holds it), then the choices. Never throws: a store that cannot list or
 * read a lock leaves the choice of `--resume` out.
 */
export async function continueRefusal(
  host: SessionHost,
  cwd: string,
  error: SessionLockedError,
): Promise<string> {
  const free = await newestFree(host, cwd, error.sessionId).catch(() => undefined);
  const resume =
    free === undefined
      ? "; no other session of this folder is free to continue"
      : `, or continue the newest one nobody has open with --resume ${free.sessionId.slice(0, 8)} ` +
        `(${free.firstPrompt === null ? LOST_PROMPT_WORDS : JSON.stringify(free.firstPrompt)}, ` +
        `last active ${free.lastActivity})`;
  return (
    `${error.message} --continue takes the newest session of this folder, ` +
    `and that one is open there: send the prompt there, run without --continue to start a new session${resume}.`
  );
}

/**
 * The newest session of `cwd` with a prompt, other than `held`, that no live process holds. One
 * with turns and no readable prompt counts: its prompt was lost with a damaged line.
 */
async function newestFree(host: SessionHost, cwd: string, held: string) {
  const sessions = (await host.list({ cwd }))
    .filter((session) => session.sessionId !== held && session.problem === undefined)
    .filter((session) => session.firstPrompt !== null || session.turns > 0)
    .slice(0, CHECKED_SESSIONS);
  for (const session of sessions) {
    if ((await host.store.holder(session.sessionId)) === undefined) {
      return session;
    }
  }
  return undefined;
}
