import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "./bubblewrap-arguments.js";
import { PROJECT_CONFIGURATION, protectedPlaceUndone } from "./policy.js";

/** One of {@link PROJECT_CONFIGURATION} that is a symbolic link in a writable root. */
interface ConfigurationLink {
  path: string;
  name: string;
  /** What the link says (`readlink`), relative or absolute. */
  target: string;
  /** Where it leads, or `undefined` when nothing is there (a dangling link). */
  real: string | undefined;
}

/**
 * What a command in a writable root could change of {@link PROJECT_CONFIGURATION} although the
 * sandbox mounts each read-only (bubblewrap-arguments.ts), noted before the command runs:
 * - `absent`: entries with nothing there, not even a dangling link: a mount over a missing path
 *   would make it in the workspace, so none is mounted;
 * - `links`: entries that are symbolic links: only where a link leads is mounted; the link itself
 *   lies in the writable root and could be replaced, and a dangling one made to lead somewhere.
 */
export interface ConfigurationSnapshot {
  roots: readonly string[];
  absent: string[];
  links: ConfigurationLink[];
}

/** Notes the {@link ConfigurationSnapshot} of `roots` before a command. */
export function configurationSnapshot(roots: readonly string[]): ConfigurationSnapshot {
  const snapshot: ConfigurationSnapshot = { roots, absent: [], links: [] };
  for (const root of roots) {
    for (const name of PROJECT_CONFIGURATION) {
      const path = join(root, name);
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined) {
        snapshot.absent.push(path);
      } else if (stats.isSymbolicLink()) {
        snapshot.links.push({ path, name, target: readlinkSync(path), real: realPath(path) });
      }
    }
  }
  return snapshot;
}

/**
 * Undoes what the command (whose processes all ended with it) did to the places of `snapshot`:
 * removes an absent entry it made, and what a dangling link leads to now (when inside a root),
 * and puts back a link it replaced or changed. A path that cannot be removed is named all the
 * same.
 * @returns why the command is reported stopped (policy.ts `protectedPlaceUndone`), or
 * `undefined` when it changed none of them.
 */
export async function undoConfigurationChanges(
  snapshot: ConfigurationSnapshot,
): Promise<string | undefined> {
  const names = new Set<string>();
  const made: string[] = [];
  for (const path of snapshot.absent) {
    if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
      made.push(path);
      names.add(path.slice(path.lastIndexOf("/") + 1));
    }
  }
  const replaced: ConfigurationLink[] = [];
  for (const link of snapshot.links) {
    const stats = lstatSync(link.path, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink() !== true || readlinkSync(link.path) !== link.target) {
      replaced.push(link);
      names.add(link.name);
      continue;
    }
    const real = link.real === undefined ? realPath(link.path) : undefined;
    if (real !== undefined && snapshot.roots.some((root) => isInside(real, root))) {
      made.push(real);
      names.add(link.name);
    }
  }
  await Promise.all(made.map((path) => rm(path, { recursive: true, force: true }).catch(() => {})));
  for (const link of replaced) {
    await rm(link.path, { recursive: true, force: true }).catch(() => {});
    await symlink(link.target, link.path).catch(() => {});
  }
  const undone = [
    ...(made.length === 0 ? [] : [`it removed ${made.join(", ")}, which the command made`]),
    ...replaced.map(
      (link) =>
        `it put back the symbolic link ${link.path} (to ${link.target}), which the command replaced`,
    ),
  ];
  const places = PROJECT_CONFIGURATION.filter((name) => names.has(name));
  return undone.length === 0 ? undefined : protectedPlaceUndone(places, undone);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
