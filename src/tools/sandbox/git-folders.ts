import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isInside, type RealPaths } from "./real-paths.js";

/**
 * How many folders below a writable root a `.git` is looked for: 0 is the root itself, 1 finds
 * `sub/.git` too. Each command lists the root and `lstat`s `.git` in each of its folders, three
 * times (its mounts, before, after); two levels would list every folder of the root as well,
 * e.g. `node_modules`: with 130 packages that added some 7 ms of CPU to a command that costs 21
 * (bench/notes/leftovers.md). A `.git` deeper down is neither protected nor removed.
 */
export const GIT_SEARCH_DEPTH = 1;

/** How deep below `.git/modules` submodules' git folders are looked for (names may hold `/`). */
const SUBMODULE_DEPTH = 4;

/**
 * The paths of the entries named `.git` (folders, files, symbolic links) in each of `roots`
 * (writable roots, real paths) and in the folders down to {@link GIT_SEARCH_DEPTH} below it;
 * symbolic links to folders are not followed, nor are `.git` folders entered.
 */
export function gitEntriesOf(roots: readonly string[]): string[] {
  const found = new Set<string>();
  const visit = (folder: string, depth: number) => {
    for (const entry of entriesOf(folder)) {
      const path = join(folder, entry.name);
      if (entry.name === ".git") {
        found.add(path);
      } else if (entry.isDirectory() && depth + 1 < GIT_SEARCH_DEPTH) {
        visit(path, depth + 1);
      } else if (entry.isDirectory() && depth + 1 === GIT_SEARCH_DEPTH) {
        // The deepest level: one lstat, not a whole listing.
        const git = join(path, ".git");
        if (lstatOf(git) !== undefined) {
          found.add(git);
        }
      }
    }
  };
  for (const root of roots) {
    visit(root, 0);
  }
  return [...found];
}

/**
 * What the sandbox mounts for the `.git` entries of the writable roots ({@link gitEntriesOf}),
 * so that nothing a command writes runs later outside the sandbox (a hook, `core.hooksPath`, an
 * alias, `core.fsmonitor`):
 * - `folders`: git folders (a `.git` folder, its submodules' `.git/modules/<name>`, the folder a
 *   `.git` file of a submodule points to, a linked worktree's main git folder) that lie in a
 *   writable root, each bound writable over itself (a mount point cannot be renamed or removed:
 *   `mv .git .git.old && git init` cannot put a new, writable `hooks` in its place), then its
 *   `hooks` and `config` read-only;
 * - `pointers`: `.git` files (a linked worktree's or a submodule's `gitdir: …`), read-only over
 *   themselves, so that a command cannot point them at a folder of its own;
 * - `worktrees`: a linked worktree's own git folder (`<main>/.git/worktrees/<name>`) in a
 *   writable root, bound over itself, and its `config.worktree` read-only when there is one.
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
  const addFolder = (folder: string) => {
    for (const path of [
      folder,
      ...submoduleGitDirectories(join(folder, "modules"), SUBMODULE_DEPTH),
    ]) {
      if (inRoot(path) && !protection.folders.includes(path)) {
        protection.folders.push(path);
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
        if (inRoot(target) && !protection.worktrees.includes(target)) {
          protection.worktrees.push(target);
        }
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
  const worktreeConfigs = protection.worktrees.flatMap((folder) => {
    const config = paths.resolve(join(folder, "config.worktree"))?.real;
    return config === undefined ? [] : ["--ro-bind", config, config];
  });
  return [
    ...protection.folders.flatMap((folder) => protectGitDirectory(folder, paths)),
    ...worktreeConfigs,
    ...protection.pointers.flatMap((pointer) => ["--ro-bind", pointer, pointer]),
  ];
}

/** A git folder's `hooks` (an empty read-only one when missing) and `config`, read-only. */
function protectGitDirectory(gitDirectory: string, paths: RealPaths): string[] {
  const hooks = paths.resolve(join(gitDirectory, "hooks"))?.real;
  const config = paths.resolve(join(gitDirectory, "config"))?.real;
  const hookMounts =
    hooks === undefined
      ? ["--tmpfs", join(gitDirectory, "hooks"), "--remount-ro", join(gitDirectory, "hooks")]
      : ["--ro-bind", hooks, hooks];
  return [...hookMounts, ...(config === undefined ? [] : ["--ro-bind", config, config])];
}

/** The real path of the folder a `.git` file names (`gitdir: <path>`, relative to the file's folder). */
function pointedFolder(pointer: string): string | undefined {
  const line = readTextOf(pointer)
    ?.split("\n")[0]
    ?.match(/^gitdir: (.+)$/)?.[1];
  return line === undefined ? undefined : realFolderOf(resolve(dirname(pointer), line.trim()));
}

/** A linked worktree's main git folder: its `commondir` file, relative to `folder`. */
function commonFolder(folder: string): string | undefined {
  const common = readTextOf(join(folder, "commondir"))?.trim();
  return common === undefined || common === "" ? undefined : realFolderOf(resolve(folder, common));
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

function readTextOf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function realFolderOf(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return lstatOf(real)?.isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
