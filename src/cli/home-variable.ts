import { statSync } from "node:fs";
import { isAbsolute } from "node:path";

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
