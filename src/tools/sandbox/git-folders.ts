import { type Dirent, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { commonFolder, lstatOf, pointedFolder } from "./configured-places.js";
import { isInside, type RealPaths } from "./real-paths.js";
import { gitEntriesOf } from "./workspace-walk.js";

/** How deep below `.git/modules` submodules' git folders are looked for (names may hold `/`). */
const SUBMODULE_DEPTH = 4;

/**
 * The files of a git folder through which git finds the config and hooks it uses, from git's own
 * list of what a repository holds (gitrepository-layout(5), git 2.39): `config`;
 * `config.worktree` (read with `extensions.worktreeConfig`); `commondir` (sets `$GIT_COMMON_DIR`:
 * the config, hooks, objects and refs of the folder it names are used instead); and, in a linked
 * worktree's own folder (`worktrees/<id>/`), `gitdir` (the path back to the worktree's `.git`
 * file, which `git worktree repair` and `prune` act on). The rest of that list (objects, refs,
 * logs, index, info …) is data git reads, never a program it runs or a place it finds one: it stays
 * writable. The `hooks` folder is mounted apart ({@link gitReadOnlyMounts}), and so are the `.git`
 * files that name a git folder (`gitdir: …`) and `modules/` and `worktrees/`, whose folders are
 * git folders of their own ({@link GitProtection}).
 */
export const LOCATING_FILES: readonly string[] = ["config", "config.worktree", "commondir"];
/** {@link LOCATING_FILES} of a linked worktree's own folder. */
export const WORKTREE_LOCATING_FILES: readonly string[] = [...LOCATING_FILES, "gitdir"];

/**
 * What the sandbox mounts for the `.git` entries of the writable roots (workspace-walk.ts
 * `WorkspaceWalk`),
 * so that nothing a command writes runs later outside the sandbox (a hook, `core.hooksPath`, an
 * alias, `core.fsmonitor`):
 * - `folders`: git folders (a `.git` folder, its submodules' `.git/modules/<name>`, the folder a
 *   `.git` file of a submodule points to, a linked worktree's main git folder) that lie in a
 *   writable root, each bound writable over itself (a mount point cannot be renamed or removed:
 *   `mv .git .git.old && git init` cannot put a new, writable `hooks` in its place), then its
 *   `hooks` and those of its {@link LOCATING_FILES} that exist read-only;
 * - `pointers`: `.git` files (a linked worktree's or a submodule's `gitdir: …`), read-only over
 *   themselves, so that a command cannot point them at a folder of its own;
 * - `worktrees`: the linked worktrees' own git folders (`<main>/.git/worktrees/<id>`) in a
 *   writable root (those of each git folder above, and the one a `.git` file points to), each
 *   bound over itself, then those of its {@link WORKTREE_LOCATING_FILES} that exist read-only.
 * A locating file that does not exist cannot be mounted without making it: git-guard.ts removes
 * one the command made.
 * Git folders outside the writable roots are read-only already. A `.git` symbolic link is left
 * as it is.
 */
export interface GitProtection {
  folders: string[];
  pointers: string[];
  worktrees: string[];
}

/**
 * The {@link GitProtection} of `roots` (writable roots, real paths), as the file system is now;
 * `entries` are their `.git` entries when already read.
 */
export function gitProtection(
  roots: readonly string[],
  entries: readonly string[] = gitEntriesOf(roots),
): GitProtection {
  const protection: GitProtection = { folders: [], pointers: [], worktrees: [] };
  const inRoot = (path: string) => roots.some((root) => isInside(path, root));
  const addWorktree = (folder: string) => {
    if (inRoot(folder) && !protection.worktrees.includes(folder)) {
      protection.worktrees.push(folder);
    }
  };
  const addFolder = (folder: string) => {
    for (const path of [
      folder,
      ...submoduleGitDirectories(join(folder, "modules"), SUBMODULE_DEPTH),
    ]) {
      if (inRoot(path) && !protection.folders.includes(path)) {
        protection.folders.push(path);
        for (const entry of entriesOf(join(path, "worktrees"))) {
          if (entry.isDirectory()) {
            addWorktree(join(path, "worktrees", entry.name));
          }
        }
      }
    }
  };
  for (const entry of entries) {
    const stats = lstatOf(entry);
    if (stats?.isDirectory()) {
      addFolder(entry);
    } else if (stats?.isFile()) {
      protection.pointers.push(entry);
      const target = pointedFolder(entry);
      const common = target === undefined ? undefined : commonFolder(target);
      if (target !== undefined && common === undefined) {
        addFolder(target);
      } else if (target !== undefined && common !== undefined) {
        addFolder(common);
        addWorktree(target);
      }
    }
  }
  return protection;
}

/** The {@link GitProtection} binds that come before the other read-only mounts. */
export function gitFolderBinds(protection: GitProtection): string[] {
  return [...protection.folders, ...protection.worktrees].flatMap((folder) => [
    "--bind",
    folder,
    folder,
  ]);
}

/** The {@link GitProtection} read-only mounts, after {@link gitFolderBinds}. */
export function gitReadOnlyMounts(protection: GitProtection, paths: RealPaths): string[] {
  const readOnly = (path: string) => {
    const real = paths.resolve(path)?.real;
    return real === undefined ? [] : ["--ro-bind", real, real];
  };
  return [
    ...protection.folders.flatMap((folder) => [
      ...hooksMounts(folder, paths),
      ...LOCATING_FILES.flatMap((name) => readOnly(join(folder, name))),
    ]),
    ...protection.worktrees.flatMap((folder) =>
      WORKTREE_LOCATING_FILES.flatMap((name) => readOnly(join(folder, name))),
    ),
    ...protection.pointers.flatMap((pointer) => ["--ro-bind", pointer, pointer]),
  ];
}

/**
 * The {@link LOCATING_FILES} (and {@link WORKTREE_LOCATING_FILES}) of `protection`'s folders that
 * do not exist: the paths git-guard.ts watches, since no mount can keep them from being made.
 */
export function missingLocatingFiles(protection: GitProtection): string[] {
  return [
    ...protection.folders.flatMap((folder) => LOCATING_FILES.map((name) => join(folder, name))),
    ...protection.worktrees.flatMap((folder) =>
      WORKTREE_LOCATING_FILES.map((name) => join(folder, name)),
    ),
  ].filter((path) => lstatOf(path) === undefined);
}

/**
 * The `hooks` and {@link LOCATING_FILES} of `protection`'s folders (and the
 * {@link WORKTREE_LOCATING_FILES} of its worktrees) that are symbolic links (`.git/hooks ->
 * ../tools/hooks`), with their targets and the real paths they lead to: {@link gitReadOnlyMounts}
 * mounts what they lead to, but the link itself lies in a writable git folder and can be
 * replaced, so git-guard.ts puts it back.
 */
export function linkedGitPlaces(
  protection: GitProtection,
): { path: string; target: string; real: string | undefined }[] {
  const paths = [
    ...protection.folders.flatMap((folder) =>
      ["hooks", ...LOCATING_FILES].map((name) => join(folder, name)),
    ),
    ...protection.worktrees.flatMap((folder) =>
      WORKTREE_LOCATING_FILES.map((name) => join(folder, name)),
    ),
  ];
  return paths.flatMap((path) => {
    if (lstatOf(path)?.isSymbolicLink() !== true) {
      return [];
    }
    try {
      return [{ path, target: readlinkSync(path), real: realPathOf(path) }];
    } catch {
      return [];
    }
  });
}

/** A git folder's `hooks` read-only (an empty read-only one when missing). */
function hooksMounts(gitDirectory: string, paths: RealPaths): string[] {
  const hooks = paths.resolve(join(gitDirectory, "hooks"))?.real;
  return hooks === undefined
    ? ["--tmpfs", join(gitDirectory, "hooks"), "--remount-ro", join(gitDirectory, "hooks")]
    : ["--ro-bind", hooks, hooks];
}

/** Git folders (those holding a `HEAD` file) below `folder`, at most `depth` levels down. */
function submoduleGitDirectories(folder: string, depth: number): string[] {
  if (depth === 0) {
    return [];
  }
  return entriesOf(folder)
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      return lstatOf(join(path, "HEAD"))?.isFile()
        ? [path, ...submoduleGitDirectories(join(path, "modules"), depth - 1)]
        : submoduleGitDirectories(path, depth - 1);
    });
}

function entriesOf(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
