import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";

/**
 * What is wrong with `TURNLOOP_HOME`, said in the variable's name, or undefined when it is unset,
 * empty (`~/.turnloop` then) or names a folder, or a place one can be made (a missing folder is
 * made at the first write). A relative path is refused rather than read against the current
 * folder: each folder would have a store of its own, and one inside a project would put session
 * logs (prompts, outputs, whatever secrets they hold) among the project's files (trial of round
 * 3, session 39, F10). A file, or a path through one, is refused by name (F11), not at the first
 * file read under it.
 */
export function homeVariableProblem(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.TURNLOOP_HOME;
  if (home === undefined || home === "") {
    return undefined;
  }
  if (!isAbsolute(home)) {
    return `TURNLOOP_HOME=${home} is a relative path; give an absolute one (TURNLOOP_HOME="$PWD/${home}" for this folder's): read against the current folder, each folder would have a store of its own, and one inside a project would put the session logs among its files`;
  }
  try {
    if (!statSync(home).isDirectory()) {
      return `TURNLOOP_HOME=${home} is not a folder; name a folder (one not there yet is made)`;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") {
      return `TURNLOOP_HOME=${home} is not a folder: a part of its path is a file`;
    }
    // Missing: made at the first write. Any other error is the first write's to report.
  }
  return undefined;
}

/**
 * A warning when the absolute `TURNLOOP_HOME` is the project folder of `cwd` or inside it
 * (session/config-paths.ts `projectFolder`: the nearest folder up holding `.git`): its session
 * logs (prompts, command output, whatever secrets they hold) and saved outputs would land among
 * the project's files, where `git add .` takes them. Silent when the home ignores itself, git's
 * way for a folder of generated files (as a Python virtual environment does): a `.gitignore` in
 * it, which the warning names as the fix. Paths are compared as spelt (resolved, no link read).
 * Silent too when no folder up holds `.git` (no repository). Cost: none when the variable is unset
 * or shares no folder but `/` with `cwd`; else the project search's few `stat` calls and, inside
 * it, two more (its `.git`, the home's `.gitignore`).
 */
export async function homeInProjectWarning(
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<string | undefined> {
  const home = env.TURNLOOP_HOME;
  if (home === undefined || !isAbsolute(home)) {
    return undefined;
  }
  const folder = resolve(home);
  const start = resolve(cwd);
  if (!mayHold(folder, start)) {
    return undefined;
  }
  const { projectFolder } = await import("../session/config-paths.js");
  const project = projectFolder(start);
  // `projectFolder` answers `cwd` itself when no folder up holds `.git`: no repository to commit
  // the logs to (a scratch folder under /tmp, say), nothing to warn of.
  if (
    !within(folder, project) ||
    !existsSync(join(project, ".git")) ||
    existsSync(join(folder, ".gitignore"))
  ) {
    return undefined;
  }
  return `TURNLOOP_HOME=${home} is inside the project ${project}: its session logs (prompts, command output, whatever secrets they hold) land among the project's files, where git may commit them; keep it outside the project, or put a .gitignore holding * in it`;
}

/**
 * Whether the project of `start` may hold `folder`, read from the paths alone: the project holds
 * `start`, so it must hold the folder both are in, which `/` is not taken to be; and a project
 * found from under the user's home folder is below it (config-paths.ts `projectFolder`), so
 * that folder must be below the home folder too (or be `start` itself).
 */
function mayHold(folder: string, start: string): boolean {
  const shared = sharedFolder(folder, start);
  if (shared === sep) {
    return false;
  }
  const user = resolve(homedir());
  return shared === start || !within(start, user) || start === user || !within(user, shared);
}

/** The deepest folder holding both `a` and `b` (resolved paths). */
function sharedFolder(a: string, b: string): string {
  const left = a.split(sep);
  const right = b.split(sep);
  let count = 0;
  while (count < left.length && left[count] === right[count]) {
    count += 1;
  }
  return left.slice(0, count).join(sep) || sep;
}

/** Whether `path` is `folder` or inside it (both resolved). */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === sep ? folder : `${folder}${sep}`);
}
