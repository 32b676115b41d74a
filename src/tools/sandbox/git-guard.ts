import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { gitEntriesOf, gitProtection } from "./git-folders.js";
import { gitRepositoryUndone } from "./policy.js";

/**
 * What a command in a writable root could add that git runs later, outside the sandbox, where
 * no mount can stop it (a mount over a missing path would make it): a `.git` made where there was
 * none (`git init sub`, `git clone`, a `.git` file pointing at a folder of the command's), and a
 * linked worktree's `config.worktree` made where there was none. Noted before the command runs.
 */
export interface GitSnapshot {
  /** The `.git` entries there were (git-folders.ts `gitEntriesOf`). */
  entries: ReadonlySet<string>;
  /** The `config.worktree` paths of the protected linked worktrees that did not exist. */
  missingWorktreeConfigs: readonly string[];
}

/** Notes the {@link GitSnapshot} of `roots` (writable roots, real paths) before a command. */
export function gitSnapshot(roots: readonly string[]): GitSnapshot {
  const entries = gitEntriesOf(roots);
  const missingWorktreeConfigs = gitProtection(roots, entries)
    .worktrees.map((folder) => join(folder, "config.worktree"))
    .filter((path) => !exists(path));
  return { entries: new Set(entries), missingWorktreeConfigs };
}

/**
 * Removes what the command (whose processes all ended with it) made of what {@link GitSnapshot}
 * watches: each new `.git` (with what the command put in it) and each new `config.worktree`.
 * @returns why the command is reported stopped (policy.ts `gitRepositoryUndone`), or `undefined`
 * when it made none of them.
 */
export async function undoGitChanges(
  snapshot: GitSnapshot,
  roots: readonly string[],
): Promise<string | undefined> {
  const made = [
    ...gitEntriesOf(roots).filter((path) => !snapshot.entries.has(path)),
    ...snapshot.missingWorktreeConfigs.filter(exists),
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
