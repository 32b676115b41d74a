import {
  type Dirent,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { NESTED_CONFIGURATION } from "./policy.js";
import { isInside, type RealPaths } from "./real-paths.js";

/**
 * How many folders below a writable root a `.git` is looked for: 0 is the root itself, 1 finds
 * `sub/.git`, 2 finds `org/repo/.git` (a folder of checkouts: a trial planted a hook in
 * `org1/repoA/.git` that the user's later `git commit` ran). Each command lists the root and its
 * folders and `lstat`s `.git` in theirs, three times (its mounts, before, after), never entering
 * {@link SKIPPED_FOLDERS} nor a `.git` folder: on this repository that walk costs some 0.5 ms of
 * CPU against 0.25 ms at depth 1, where depth 3 (listing some 2,000 entries) cost 1.8 ms
 * (bench/notes/sandbox27.md). A `.git` deeper down (`a/b/c/.git`), or inside a skipped folder,
 * is neither protected nor removed.
 */
export const GIT_SEARCH_DEPTH = 2;

/**
 * Folders the search for `.git` does not enter: npm's packages (thousands of folders, and a
 * package's own `.git` is not one the user commits in).
 */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(["node_modules"]);

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
 * The paths of the entries named `.git` (folders, files, symbolic links) in each of `roots`
 * (writable roots, real paths) and in the folders down to {@link GIT_SEARCH_DEPTH} below it;
 * symbolic links to folders are not followed, nor are `.git` folders and
 * {@link SKIPPED_FOLDERS} entered.
 */
export function gitEntriesOf(roots: readonly string[]): string[] {
  return workspaceEntriesOf(roots).git;
}

/**
 * What one walk of the writable roots finds: `git`, the {@link gitEntriesOf}; and `nested`, the
 * entries named as one of policy.ts `NESTED_CONFIGURATION` (`.npmrc`, `.vscode` …, whatever
 * they are) in the roots' folders (`pkg/.npmrc`, `sub/.vscode`), read from the listings the
 * search for `.git` makes anyway: one deeper (`packages/a/.envrc`) is not found, since that
 * level is not listed (one `lstat` of `.git` a folder there). The roots' own are not in
 * `nested`: configuration-chain.ts keeps those.
 */
export function workspaceEntriesOf(roots: readonly string[]): { git: string[]; nested: string[] } {
  const found = new Set<string>();
  const nested = new Set<string>();
  const visit = (folder: string, depth: number) => {
    for (const entry of entriesOf(folder)) {
      if (entry.name === ".git") {
        found.add(join(folder, ".git"));
        continue;
      }
      if (depth === 1 && NESTED_NAMES.has(entry.name)) {
        nested.add(join(folder, entry.name));
      }
      // A symbolic link to a folder is not followed. Paths are made only for folders: most
      // entries are files, and a `join` each was a third of the walk's time.
      if (!entry.isDirectory() || SKIPPED_FOLDERS.has(entry.name)) {
        continue;
      }
      const path = join(folder, entry.name);
      if (depth + 1 < GIT_SEARCH_DEPTH) {
        visit(path, depth + 1);
      } else if (lstatOf(`${path}/.git`) !== undefined) {
        // The deepest level: one lstat, not a whole listing (`path` is never `/` here).
        found.add(`${path}/.git`);
      }
    }
  };
  for (const root of roots) {
    visit(root, 0);
  }
  return { git: [...found], nested: [...nested] };
}

/** {@link NESTED_CONFIGURATION} as a set, for the walk's look-up of each name it lists. */
const NESTED_NAMES: ReadonlySet<string> = new Set(NESTED_CONFIGURATION);

/**
 * What the sandbox mounts for the `.git` entries of the writable roots ({@link gitEntriesOf}),
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

/** The real path of the folder a `.git` file names (`gitdir: <path>`, relative to the file's folder). */
export function pointedFolder(pointer: string): string | undefined {
  const line = readTextOf(pointer)
    ?.split("\n")[0]
    ?.match(/^gitdir: (.+)$/)?.[1];
  return line === undefined ? undefined : realFolderOf(resolve(dirname(pointer), line.trim()));
}

/** A linked worktree's main git folder: its `commondir` file, relative to `folder`. */
export function commonFolder(folder: string): string | undefined {
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

/** The text of the file at `path`, or undefined when it cannot be read. */
export function readTextOf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
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

/** What `path` itself is (a link is not followed), or undefined when it is not there. */
export function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
