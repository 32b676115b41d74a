import { lstatSync, readlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type ConfiguredPlace, configuredPlacesOf, type GitUser } from "./configured-places.js";
import { LATER_RUN_CONFIGURATION, PROJECT_CONFIGURATION } from "./policy.js";
import { isInside, type RealPaths } from "./real-paths.js";

/** Most symbolic links one resolution follows, as Linux's own path walk (`ELOOP` past 40). */
const MAX_LINKS = 40;

/**
 * An entry directly in a writable root that resolving a place passes through, and how the
 * sandbox keeps it: a mount point cannot be renamed or removed (`EBUSY`), so an entry that exists
 * is mounted read-only over itself and the whole chain below it is fixed for the command; a
 * symbolic link cannot be mounted over (a mount follows it), so it is put back after the command
 * when changed; a missing one cannot be mounted without making it, so what the command made
 * there is removed after it (configuration-guard.ts).
 */
export type RootEntry =
  | { kind: "mounted"; path: string; identity?: string }
  | { kind: "link"; path: string; target: string }
  | { kind: "missing"; path: string };

/**
 * How one of {@link PROJECT_CONFIGURATION} in one writable root resolves, or another place kept
 * the same way (a hooks folder or included config file that leads through a symbolic link:
 * configured-places.ts).
 */
export interface ConfigurationChain {
  /** The place's name, e.g. `.turnloop`; its path for another place. */
  name: string;
  /** Its absolute path in the root. */
  path: string;
  /**
   * Each {@link RootEntry} the resolution passes through, in order, without repeats: the place
   * itself, then any entry of a writable root a symbolic link leads to (`.turnloop -> cfg/tl`
   * gives the link `.turnloop` and the folder `cfg`). Ends at a missing entry.
   */
  entries: RootEntry[];
}

/**
 * The {@link ConfigurationChain} of each of {@link LATER_RUN_CONFIGURATION} in each of `roots` (writable roots, real absolute paths). Walks each path
 * one component at a time as the kernel does (`lstat`, `readlink`), so reads a few entries per
 * place; stops at a missing entry, a component that is no folder, or past {@link MAX_LINKS}
 * links. A place below a folder of the root (`.config/git`) is kept alone, not its folder
 * (`.config` stays writable): its chain starts at the place, a missing one where that folder is
 * missing, and a mounted entry's identity is noted, since moving that folder away moves the mount
 * with it and lets a new place be made at the old path. Then the chain of each of `nested`, the
 * tool configuration found in the roots' folders and of the files MCP servers run, `programs`
 * (server-programs.ts `serverProgramsIn`), each named by its path ({@link fileChains}).
 */
export function configurationChains(
  roots: readonly string[],
  nested: readonly string[] = [],
  programs: readonly string[] = [],
): ConfigurationChain[] {
  const folders = new Set(roots.filter((root) => lstatOf(root)?.isDirectory() === true));
  return [
    ...rootChains(roots, folders),
    ...fileChains(
      roots,
      nested.filter((path) => !roots.includes(dirname(path))),
      folders,
    ).map((chain) => ({ ...chain, name: basename(chain.path) })),
    ...fileChains(roots, programs, folders),
  ];
}

/**
 * The chain of each of `paths` in the roots' folders at any depth, named by its path: policy.ts
 * `NESTED_CONFIGURATION` places found there (`pkg/.npmrc`, `a/b/c/.envrc`: workspace-walk.ts
 * `WorkspaceWalk`; one directly in a root is left out by the caller, {@link rootChains} has it,
 * and each is named by its last component) and the files MCP servers run (server-programs.ts
 * `serverProgramsIn`: `tools/mcp.sh`). Each is walked as a root's own with its folder and the
 * folders between it and its root taken for roots (`a`, `a/b` stay writable): the place itself is
 * mounted read-only over itself (its identity noted), or, a symbolic link, put back when
 * replaced, what it leads through in a root mounted read-only; a missing one is removed when a
 * command makes it.
 */
function fileChains(
  roots: readonly string[],
  paths: readonly string[],
  folders: ReadonlySet<string>,
): ConfigurationChain[] {
  return paths.map((path) => ({
    name: path,
    path,
    entries: rootEntries(path, [...roots, ...foldersBetween(roots, dirname(path))], folders),
  }));
}

/** `folder` and the folders above it up to the root of `roots` that holds it, that root left out. */
function foldersBetween(roots: readonly string[], folder: string): string[] {
  const between: string[] = [];
  for (let path = folder; !roots.includes(path) && path !== dirname(path); path = dirname(path)) {
    between.push(path);
  }
  return between;
}

/** The chain of each of {@link LATER_RUN_CONFIGURATION} in each of `roots`. */
function rootChains(roots: readonly string[], folders: ReadonlySet<string>): ConfigurationChain[] {
  return roots.flatMap((root) =>
    LATER_RUN_CONFIGURATION.map((name) => {
      const path = join(root, name);
      const folder = dirname(path);
      if (folder === root) {
        return { name, path, entries: rootEntries(path, roots, folders) };
      }
      // A folder that is a symbolic link is followed, as the kernel follows it.
      const entries: RootEntry[] =
        lstatOf(folder) !== undefined
          ? rootEntries(path, [...roots, folder], folders)
          : [{ kind: "missing", path }];
      return { name, path, entries };
    }),
  );
}

/**
 * The entries directly in one of `roots` that resolving the absolute `path` passes through. The
 * walk starts at the outermost root that holds `path` when that root is a folder and no symbolic
 * link ({@link walkStart}), else at `/`; `folders` are roots already seen to be such (`lstat`ed
 * by the caller for this command), which are not `lstat`ed again.
 */
export function rootEntries(
  path: string,
  roots: readonly string[],
  folders: ReadonlySet<string> = new Set(),
): RootEntry[] {
  const entries = new Map<string, RootEntry>();
  const start = walkStart(path, roots, folders);
  const pending = path.slice(start.length).split("/");
  let current = start;
  let links = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === "" || part === ".") {
      continue;
    }
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const stats = lstatOf(next);
    const inRoot = roots.includes(dirname(next)) && !roots.includes(next);
    if (stats === undefined) {
      if (inRoot && !entries.has(next)) {
        entries.set(next, { kind: "missing", path: next });
      }
      break;
    }
    if (stats.isSymbolicLink()) {
      const target = readlinkSync(next);
      if (inRoot && !entries.has(next)) {
        entries.set(next, { kind: "link", path: next, target });
      }
      if (++links > MAX_LINKS) {
        break;
      }
      pending.unshift(...target.split("/"));
      current = target.startsWith("/") ? "/" : current;
      continue;
    }
    if (inRoot && !entries.has(next)) {
      entries.set(next, { kind: "mounted", path: next, identity: `${stats.dev}:${stats.ino}` });
    }
    current = next;
  }
  return [...entries.values()];
}

/**
 * Where the walk of `path` may start: the outermost of `roots` that holds it (real paths, so the
 * folders above it are no symbolic links, and none of them is directly in a root, or a root
 * outside it would hold `path`), when it is still a folder and no symbolic link; `/` otherwise.
 * Walking from `/` instead only `lstat`s the root's folders again (issue 26: four more a place
 * for a workspace four folders down, some 100 a command), and finds the same entries.
 */
function walkStart(path: string, roots: readonly string[], folders: ReadonlySet<string>): string {
  const holding = roots.filter((root) => root !== path && isInside(path, root));
  const outermost = holding.reduce<string | undefined>(
    (found, root) => (found === undefined || root.length < found.length ? root : found),
    undefined,
  );
  if (outermost === undefined) {
    return "/";
  }
  return folders.has(outermost) || lstatOf(outermost)?.isDirectory() === true ? outermost : "/";
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES: the kernel's walk stops there too
  }
}

/**
 * The bubblewrap mounts that fix every {@link ConfigurationChain} of `roots`, of the tool
 * configuration `nested` in their folders and of the files MCP servers run, `programs`
 * ({@link configurationChains}), and the `others` kept the same way, for a command: each `mounted` entry read-only over itself (a mount point:
 * `mv cfg cfg.old` fails with `EBUSY`, and everything below is read-only), and a writable root
 * that lies inside such an entry (an added folder below it) mounted writable again after it,
 * outer mounts first.
 */
export function configurationMounts(
  roots: readonly string[],
  others: readonly ConfigurationChain[] = [],
  nested: readonly string[] = [],
  programs: readonly string[] = [],
): string[] {
  const entries = [...configurationChains(roots, nested, programs), ...others].flatMap(
    (chain) => chain.entries,
  );
  const fixed = [
    ...new Set(entries.flatMap((entry) => (entry.kind === "mounted" ? [entry.path] : []))),
  ];
  const reopened = roots.filter((root) =>
    fixed.some((path) => path !== root && isInside(root, path)),
  );
  const mounts = [
    ...fixed.map((path) => ({ path, option: "--ro-bind" })),
    ...reopened.map((path) => ({ path, option: "--bind" })),
  ].sort((a, b) => a.path.length - b.path.length);
  return mounts.flatMap(({ path, option }) => [option, path, path]);
}

/**
 * The {@link ConfiguredPlace}s of `entries` that lie in one of `roots` (writable roots, real
 * paths): `existing` (real paths: a mount follows symbolic links) to mount read-only over
 * themselves, `missing` for git-guard.ts to remove when a command makes one, and `chains`, those
 * whose path in a root leads through a symbolic link there (`.husky -> cfg/husky`), which the
 * command could replace: kept as `.turnloop`'s are (configuration-chain.ts: every entry of a root
 * they lead through mounted read-only, a link replaced put back, one made at a missing entry
 * removed), so they are not in `missing`.
 */
export function configuredPlacesIn(
  roots: readonly string[],
  entries: readonly string[],
  user: GitUser,
  paths: RealPaths,
): { existing: ConfiguredPlace[]; missing: string[]; chains: ConfigurationChain[] } {
  const existing: ConfiguredPlace[] = [];
  const missing: string[] = [];
  const chains: ConfigurationChain[] = [];
  for (const place of configuredPlacesOf(entries, user)) {
    const real = paths.resolve(place.path)?.real;
    const inRoot = roots.some((root) => isInside(place.path, root));
    // A place that is its own real path leads through no symbolic link: no walk.
    const chain = inRoot && real !== place.path ? rootEntries(place.path, roots) : [];
    if (chain.some((entry) => entry.kind === "link")) {
      chains.push({ name: place.path, path: place.path, entries: chain });
    } else if (real === undefined && inRoot) {
      missing.push(place.path);
    }
    if (real !== undefined && roots.some((root) => isInside(real, root))) {
      existing.push({ path: real, kind: place.kind });
    }
  }
  return { existing, missing, chains };
}
