import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { ConfigurationChain } from "./configuration-chain.js";
import { undoChainChanges } from "./configuration-guard.js";
import { type ConfiguredPlace, configuredPlacesIn, type GitUser } from "./configured-places.js";
import { gitEntriesOf, gitProtection, missingLocatingFiles } from "./git-folders.js";
import { gitRepositoryUndone } from "./policy.js";
import type { RealPaths } from "./real-paths.js";

/**
 * What a command in a writable root could add that git runs later, outside the sandbox, where
 * no mount can stop it (a mount over a missing path would make it): a `.git` made where there was
 * none (`git init sub`, `git clone`, a `.git` file pointing at a folder of the command's); a git
 * folder made in a protected one's `modules/` or `worktrees/` (a submodule's or a linked
 * worktree's, with a config of its own); and a file through which git finds config or hooks made
 * where there was none (git-folders.ts `LOCATING_FILES`: `.git/commondir` pointing at a folder of
 * the command's, `config.worktree`); and a hooks folder or an included config file that the config
 * names (`core.hooksPath`, `include.path`: configured-places.ts) inside a writable root, made where there
 * was none. Noted before the command runs.
 */
export interface GitSnapshot {
  /** The `.git` entries there were (git-folders.ts `gitEntriesOf`). */
  entries: ReadonlySet<string>;
  /** The protected git folders there were (git-folders.ts `GitProtection` folders and worktrees). */
  folders: ReadonlySet<string>;
  /** The locating files of the protected git folders that did not exist. */
  missingLocatingFiles: readonly string[];
  /** The hooks folders and included config files in a writable root that exist (real paths). */
  configuredPlaces: readonly ConfiguredPlace[];
  /** Those the config names in a writable root that did not exist. */
  missingConfiguredPlaces: readonly string[];
  /** Those that lead through a symbolic link in a writable root (configured-places.ts). */
  configuredChains: readonly ConfigurationChain[];
}

/**
 * Notes the {@link GitSnapshot} of `roots` (writable roots, real paths) before a command; `user`
 * tells where the user's git config is and what `~/` in `core.hooksPath` means.
 */
export function gitSnapshot(
  roots: readonly string[],
  user: GitUser,
  paths: RealPaths,
): GitSnapshot {
  const entries = gitEntriesOf(roots);
  const protection = gitProtection(roots, entries);
  const configured = configuredPlacesIn(roots, entries, user, paths);
  return {
    entries: new Set(entries),
    folders: new Set([...protection.folders, ...protection.worktrees]),
    missingLocatingFiles: missingLocatingFiles(protection),
    configuredPlaces: configured.existing,
    missingConfiguredPlaces: configured.missing,
    configuredChains: configured.chains,
  };
}

/**
 * Removes what the command (whose processes all ended with it) made of what {@link GitSnapshot}
 * watches: each new `.git`, each new git folder in a protected one's `modules/` or `worktrees/`
 * (with what the command put in them), each new locating file, hooks folder and included config
 * file; and puts back a symbolic link such a place leads through that the command replaced
 * (configuration-guard.ts `undoChainChanges`, as for `.turnloop`).
 * @returns why the command is reported stopped (policy.ts `gitRepositoryUndone`), or `undefined`
 * when it changed none of them.
 */
export async function undoGitChanges(
  snapshot: GitSnapshot,
  roots: readonly string[],
): Promise<string | undefined> {
  const entries = gitEntriesOf(roots);
  const kept = entries.filter((path) => snapshot.entries.has(path));
  const protection = gitProtection(roots, kept);
  const made = [
    ...entries.filter((path) => !snapshot.entries.has(path)),
    ...[...protection.folders, ...protection.worktrees].filter(
      (folder) => !snapshot.folders.has(folder),
    ),
    ...snapshot.missingLocatingFiles.filter(exists),
    ...snapshot.missingConfiguredPlaces.filter(exists),
  ];
  await Promise.all(made.map((path) => rm(path, { recursive: true, force: true }).catch(() => {})));
  const chains = await undoChainChanges(snapshot.configuredChains);
  const undone = [
    ...(made.length === 0 ? [] : [`it removed ${made.join(", ")}, which the command made`]),
    ...chains.undone,
  ];
  return undone.length === 0 ? undefined : gitRepositoryUndone(undone);
}

/** Whether anything (a symbolic link to nothing included) is at `path`. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
