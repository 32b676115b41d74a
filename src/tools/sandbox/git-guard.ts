import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { type ConfigurationChain, configuredPlacesIn } from "./configuration-chain.js";
import { undoChainChanges } from "./configuration-guard.js";
import type { ConfiguredPlace, GitUser } from "./configured-places.js";
import { gitProtection, linkedGitPlaces, missingLocatingFiles } from "./git-folders.js";
import { gitRepositoryUndone } from "./protected-place-stops.js";
import { isInside, type RealPaths } from "./real-paths.js";
import { gitEntriesOf } from "./workspace-walk.js";

/**
 * What a command in a writable root could add that git runs later, outside the sandbox, where
 * no mount can stop it (a mount over a missing path would make it): a `.git` made where there was
 * none (`git init sub`, `git clone`, a `.git` file pointing at a folder of the command's); a git
 * folder made in a protected one's `modules/` or `worktrees/` (a submodule's or a linked
 * worktree's, with a config of its own); and a file through which git finds config or hooks made
 * where there was none (git-folders.ts `LOCATING_FILES`: `.git/commondir` pointing at a folder of
 * the command's, `config.worktree`); and a hooks folder or an included config file that the config
 * names (`core.hooksPath`, `include.path`: configured-places.ts) inside a writable root, made where there
 * was none. Each is noted with the file it is (device and inode), since a mount point cannot be
 * moved but the folder holding it can, taking the mount along: `mv sub moved && git init sub`
 * makes a new `sub/.git` at the path of the old, and `mv tools moved && mkdir -p tools/git-hooks`
 * a new hooks folder. One at the path of the old but another file was made by the command; one at
 * a new path that is an old one moved was not (it is left where the command put it). Noted before
 * the command runs.
 */
export interface GitSnapshot {
  /** The `.git` entries there were (workspace-walk.ts `gitEntriesOf`), each with its identity. */
  entries: ReadonlyMap<string, string>;
  /** The protected git folders there were (git-folders.ts `GitProtection` folders and worktrees). */
  folders: ReadonlyMap<string, string>;
  /** The locating files of the protected git folders that did not exist. */
  missingLocatingFiles: readonly string[];
  /** The hooks folders and included config files in a writable root that exist (real paths). */
  configuredPlaces: readonly ConfiguredPlace[];
  /** Their identities, and those of what a git folder's linked `hooks` or file leads to in a root. */
  placeIdentities: ReadonlyMap<string, string>;
  /** Those the config names in a writable root that did not exist. */
  missingConfiguredPlaces: readonly string[];
  /**
   * Those that lead through a symbolic link in a writable root (configured-places.ts), and a
   * protected git folder's `hooks` or locating file that is a symbolic link (git-folders.ts
   * `linkedGitPlaces`), each a chain of that one link.
   */
  linkChains: readonly ConfigurationChain[];
}

/**
 * Notes the {@link GitSnapshot} of `roots` (writable roots, real paths) before a command; `user`
 * tells where the user's git config is and what `~/` in `core.hooksPath` means; `entries` are
 * their `.git` entries when already read.
 */
export function gitSnapshot(
  roots: readonly string[],
  user: GitUser,
  paths: RealPaths,
  entries: readonly string[] = gitEntriesOf(roots),
): GitSnapshot {
  const protection = gitProtection(roots, entries);
  const configured = configuredPlacesIn(roots, entries, user, paths);
  const links = linkedGitPlaces(protection);
  const linkedTargets = links.flatMap(({ real }) =>
    real !== undefined && roots.some((root) => isInside(real, root)) ? [real] : [],
  );
  return {
    entries: identitiesOf(entries),
    folders: identitiesOf([...protection.folders, ...protection.worktrees]),
    missingLocatingFiles: missingLocatingFiles(protection),
    configuredPlaces: configured.existing,
    placeIdentities: identitiesOf([
      ...configured.existing.map((place) => place.path),
      ...linkedTargets,
    ]),
    missingConfiguredPlaces: configured.missing,
    linkChains: [
      ...configured.chains,
      ...links.map(({ path, target }) => ({
        name: path,
        path,
        entries: [{ kind: "link" as const, path, target }],
      })),
    ],
  };
}

/**
 * Removes what the command (whose processes all ended with it) made of what {@link GitSnapshot}
 * watches: each new `.git`, each new git folder in a protected one's `modules/` or `worktrees/`
 * (with what the command put in them), each new locating file, hooks folder and included config
 * file; and puts back a symbolic link such a place leads through that the command replaced
 * (configuration-guard.ts `undoChainChanges`, as for `.turnloop`); `entries` are the roots' `.git`
 * entries after the command when already read.
 * @returns why the command is reported stopped (protected-place-stops.ts `gitRepositoryUndone`), or `undefined`
 * when it changed none of them.
 */
export async function undoGitChanges(
  snapshot: GitSnapshot,
  roots: readonly string[],
  entries: readonly string[] = gitEntriesOf(roots),
): Promise<string | undefined> {
  const madeEntries = entries.filter((path) => madeSince(snapshot.entries, path));
  const protection = gitProtection(
    roots,
    entries.filter((path) => !madeEntries.includes(path)),
  );
  const made = [
    ...madeEntries,
    ...[...protection.folders, ...protection.worktrees].filter((folder) =>
      madeSince(snapshot.folders, folder),
    ),
    ...snapshot.missingLocatingFiles.filter(exists),
    ...snapshot.missingConfiguredPlaces.filter(exists),
    ...[...snapshot.placeIdentities.keys()].filter(
      (path) => exists(path) && madeSince(snapshot.placeIdentities, path),
    ),
  ];
  await Promise.all(made.map((path) => rm(path, { recursive: true, force: true }).catch(() => {})));
  const chains = await undoChainChanges(snapshot.linkChains);
  const undone = [
    ...(made.length === 0 ? [] : [`it removed ${made.join(", ")}, which the command made`]),
    ...chains.undone,
  ];
  return undone.length === 0 ? undefined : gitRepositoryUndone(undone);
}

/** The identity (device and inode, a link not followed) of each of `paths` that exists. */
function identitiesOf(paths: readonly string[]): Map<string, string> {
  const identities = new Map<string, string>();
  for (const path of paths) {
    const identity = identityOf(path);
    if (identity !== undefined) {
      identities.set(path, identity);
    }
  }
  return identities;
}

function identityOf(path: string): string | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether what is at `path` now was made since `noted` (paths and identities before the
 * command): another file than the one noted at that path, or at a path not noted and none of the
 * noted ones moved there.
 */
function madeSince(noted: ReadonlyMap<string, string>, path: string): boolean {
  const identity = identityOf(path);
  const before = noted.get(path);
  if (before !== undefined) {
    return identity !== before;
  }
  return identity === undefined || ![...noted.values()].includes(identity);
}

/** Whether anything (a symbolic link to nothing included) is at `path`. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
