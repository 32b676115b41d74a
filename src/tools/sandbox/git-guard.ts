import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { GIT_POINTER_FILES, gitEntriesOf, gitProtection } from "./git-folders.js";
import { gitRepositoryUndone } from "./policy.js";

/**
 * What a command in a writable root could add that git runs later, outside the sandbox, where
 * no mount can stop it (a mount over a missing path would make it): a `.git` made where there was
 * none (`git init sub`, `git clone`, a `.git` file pointing at a folder of the command's), and a
 * `commondir` or `config.worktree` (git-folders.ts `GIT_POINTER_FILES`) made in a protected git
 * folder where there was none. Noted before the command runs.
 */
export interface GitSnapshot {
  /** The `.git` entries there were (git-folders.ts `gitEntriesOf`). */
  entries: ReadonlySet<string>;
  /** The {@link GIT_POINTER_FILES} of the protected git folders that did not exist. */
  missingPointerFiles: readonly string[];
}

/** Notes the {@link GitSnapshot} of `roots` (writable roots, real paths) before a command. */
export function gitSnapshot(roots: readonly string[]): GitSnapshot {
  const entries = gitEntriesOf(roots);
  const { folders, worktrees } = gitProtection(roots, entries);
  const missingPointerFiles = [...folders, ...worktrees]
    .flatMap((folder) => GIT_POINTER_FILES.map((name) => join(folder, name)))
    .filter((path) => !exists(path));
  return { entries: new Set(entries), missingPointerFiles };
}

/**
 * Removes what the command (whose processes all ended with it) made of what {@link GitSnapshot}
 * watches: each new `.git` (with what the command put in it), `commondir` and `config.worktree`.
 * @returns why the command is reported stopped (policy.ts `gitRepositoryUndone`), or `undefined`
 * when it made none of them.
 */
export async function undoGitChanges(
  snapshot: GitSnapshot,
  roots: readonly string[],
): Promise<string | undefined> {
  const made = [
    ...gitEntriesOf(roots).filter((path) => !snapshot.entries.has(path)),
    ...snapshot.missingPointerFiles.filter(exists),
  ];
  await Promise.all(made.map((path) => rm(path, { recursive: true, force: true }).catch(() => {})));
  return made.length === 0 ? undefined : gitRepositoryUndone(made);
}

/** Whether anything (a symbolic link to nothing included) is at `path`. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
