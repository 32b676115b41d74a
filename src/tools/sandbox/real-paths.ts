import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { DEFAULT_HIDDEN_PATHS, resolvedBelow, type SandboxSettings } from "./policy.js";

/** Where a path leads: its real path and whether that is a folder. */
export interface ResolvedPath {
  real: string;
  directory: boolean;
}

/**
 * Real paths of the places a sandbox mounts, remembered between commands (issue 23's overhead:
 * resolving a path through `realpath` costs one `lstat` per component, about a hundred system
 * calls per command for the default hidden places). Each look-up still `lstat`s the path itself,
 * so a place created, removed or replaced since the last command is seen at once: a remembered
 * answer is used only while the path is no symbolic link and names the same file (device, inode
 * and mode) as when it was resolved; symbolic links are resolved at every look-up.
 */
export class RealPaths {
  private readonly known = new Map<string, { identity: string; resolved: ResolvedPath }>();

  /** The real path of `path` and whether it is a folder; `undefined` when nothing is there. */
  resolve(path: string): ResolvedPath | undefined {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (link === undefined) {
      this.known.delete(path);
      return undefined;
    }
    if (link.isSymbolicLink()) {
      return resolveNow(path);
    }
    const identity = `${link.dev}:${link.ino}:${link.mode}`;
    const remembered = this.known.get(path);
    if (remembered?.identity === identity) {
      return remembered.resolved;
    }
    const resolved = resolveNow(path);
    if (resolved !== undefined) {
      this.known.set(path, { identity, resolved });
    }
    return resolved;
  }

  /** Forgets what `path` resolved to: something else than an `lstat` found nothing there. */
  forget(path: string): void {
    this.known.delete(path);
  }
}

function resolveNow(path: string): ResolvedPath | undefined {
  try {
    const real = realpathSync(path);
    const stats = statSync(real, { throwIfNoEntry: false });
    return stats === undefined ? undefined : { real, directory: stats.isDirectory() };
  } catch {
    return undefined;
  }
}

/**
 * Whether `path` is `folder` or lies below it; both absolute and normalised. Compared in place,
 * without a `folder + "/"` string per call: the hidden places judge every path of a file tool's
 * call and search against each place (bench/notes/turn34.md).
 */
export function isInside(path: string, folder: string): boolean {
  if (!path.startsWith(folder)) {
    return false;
  }
  return (
    path.length === folder.length || folder === sep || path.charCodeAt(folder.length) === SEPARATOR
  );
}

/** The character code of `path.sep` (`/`). */
const SEPARATOR = sep.charCodeAt(0);

/** The real path of `path` (absolute), or of its nearest existing parent joined with the rest. */
export function landingPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(landingPath(parent), basename(path));
  }
}

/**
 * The first of `places` (paths below a folder, e.g. `.vscode`, `.config/git`) that, in a folder
 * holding `path` (real, absolute), leads through a symbolic link to `path` or a folder above it:
 * the place a write to `path` lands in although the path's own names do not spell it
 * (`/w/cfg/vscode/tasks.json` where `/w/.vscode -> cfg/vscode`; `/w/elsewhere/cfg/git/config`
 * where `/w/.config -> elsewhere/cfg`, a link at any level of the place); `undefined` when none
 * is. One `lstat` per component of a place and folder, up to the first that is missing.
 */
export function linkedPlaceOf(path: string, places: readonly string[]): string | undefined {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const place = places.find((each) => leadsTo(folder, each, path));
    if (place !== undefined || dirname(folder) === folder) {
      return place;
    }
  }
}

/**
 * Whether `place` in `folder` passes through a symbolic link (itself or a folder of it) and lands
 * where `path` is or above it.
 */
function leadsTo(folder: string, place: string, path: string): boolean {
  let entry = folder;
  try {
    for (const part of place.split("/")) {
      entry = join(entry, part);
      const stats = lstatSync(entry, { throwIfNoEntry: false });
      if (stats === undefined) {
        return false;
      }
      if (stats.isSymbolicLink()) {
        return isInside(path, landingPath(join(folder, place)));
      }
    }
    return false;
  } catch {
    // A component of `entry` is a file (ENOTDIR) or cannot be read: no link there.
    return false;
  }
}

/**
 * The hidden places of `settings` as absolute paths, links not resolved: its {@link
 * SandboxSettings.hidden} list (default {@link DEFAULT_HIDDEN_PATHS}) read against its home
 * folder (a leading `~/` allowed), `TURNLOOP_HOME`, the runtime folder and
 * {@link DEFAULT_HIDDEN_SOCKETS}. The one list: the sandbox hides those that exist
 * (bubblewrap-arguments.ts), and the file tools keep out of the same places
 * (permissions/hidden-places.ts), so that a `view` cannot read what a `cat` in the sandbox cannot.
 */
export function hiddenPlacePaths(settings: HiddenPlaceSettings): string[] {
  const entries = (settings.hidden ?? DEFAULT_HIDDEN_PATHS).map((entry) =>
    isAbsolute(entry) ? entry : resolvedBelow(settings.home, entry.replace(/^~\//, "")),
  );
  const runtime = settings.runtimeDirectory === undefined ? [] : [settings.runtimeDirectory];
  return [...entries, settings.turnloopHome, ...runtime, ...DEFAULT_HIDDEN_SOCKETS];
}

/** What {@link hiddenPlacePaths} reads of the settings. */
export type HiddenPlaceSettings = Pick<
  SandboxSettings,
  "home" | "hidden" | "turnloopHome" | "runtimeDirectory"
>;

/**
 * Host sockets that give a process more than the sandbox allows (a read-only mount does not stop
 * `connect` on a unix socket): Docker's, which is as good as root. Hidden by default.
 */
export const DEFAULT_HIDDEN_SOCKETS: readonly string[] = [
  "/run/docker.sock",
  "/var/run/docker.sock",
];
