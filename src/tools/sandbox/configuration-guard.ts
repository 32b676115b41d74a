import { lstatSync, readlinkSync, statSync } from "node:fs";
import { rm, symlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import {
  type ConfigurationChain,
  configurationChains,
  type RootEntry,
} from "./configuration-chain.js";
import { LATER_RUN_CONFIGURATION } from "./policy.js";
import { type LeadingEntry, protectedPlaceUndone } from "./protected-place-stops.js";

/**
 * What a command in a writable root could change of how {@link LATER_RUN_CONFIGURATION} resolves
 * although the sandbox mounts read-only every entry of a root they pass through
 * (configuration-chain.ts `configurationMounts`), noted before the command runs: the chains,
 * whose `link` entries (the link itself lies in a writable root: it could be replaced) and
 * `missing` entries (a mount over a missing path would make it) the guard checks after it; and
 * the tool configuration in the roots' folders at any depth (`pkg/.npmrc`, `a/b/.npmrc`:
 * workspace-walk.ts `WorkspaceWalk`), with their identities, since one the command makes there where there was
 * none cannot be mounted before it.
 */
export interface ConfigurationSnapshot {
  roots: readonly string[];
  chains: ConfigurationChain[];
  /** The tool configuration in the roots' folders, each path with its identity (device, inode). */
  nested: ReadonlyMap<string, string>;
}

/**
 * Notes the {@link ConfigurationSnapshot} of `roots` (writable roots, real paths) before a
 * command; `nested` is the tool configuration in their folders, `programs` the files MCP servers
 * run there (server-programs.ts `serverProgramsIn`).
 */
export function configurationSnapshot(
  roots: readonly string[],
  nested: readonly string[] = [],
  programs: readonly string[] = [],
): ConfigurationSnapshot {
  const identities = new Map<string, string>();
  for (const path of nested) {
    const stats = lstatOf(path);
    if (stats !== undefined) {
      identities.set(path, `${stats.dev}:${stats.ino}`);
    }
  }
  return { roots, chains: configurationChains(roots, nested, programs), nested: identities };
}

/**
 * The entries the sandbox mounted read-only for `snapshot` other than the places themselves, with
 * the place that leads through each: a write refused there is worded for the place.
 */
export function leadingEntries(snapshot: ConfigurationSnapshot): LeadingEntry[] {
  return snapshot.chains.flatMap((chain) =>
    chain.entries
      .filter((entry) => entry.kind === "mounted" && entry.path !== chain.path)
      .map((entry) => ({ entry: basename(entry.path), place: chain.name })),
  );
}

/**
 * Undoes what the command (whose processes all ended with it) changed of the chains of
 * `snapshot` (see {@link undoChainChanges}) and removes the tool configuration it made in the
 * roots' folders: each of `nestedAfter` (found after it, workspace-walk.ts `WorkspaceWalk`)
 * that was not there before nor is one noted that the command moved there (`mv pkg pkg2`).
 * @returns why the command is reported stopped (protected-place-stops.ts `protectedPlaceUndone`), or
 * `undefined` when it changed none of them.
 */
export async function undoConfigurationChanges(
  snapshot: ConfigurationSnapshot,
  nestedAfter: readonly string[] = [],
): Promise<string | undefined> {
  const noted = new Set(snapshot.nested.values());
  const made = nestedAfter.filter((path) => {
    if (snapshot.roots.includes(dirname(path)) || snapshot.nested.has(path)) {
      return false;
    }
    const stats = lstatOf(path);
    return stats !== undefined && !noted.has(`${stats.dev}:${stats.ino}`);
  });
  await Promise.all(made.map((path) => rm(path, { recursive: true, force: true }).catch(() => {})));
  const { names, undone } = await undoChainChanges(snapshot.chains);
  for (const path of made) {
    names.add(basename(path));
  }
  const all = [
    ...(made.length === 0 ? [] : [`it removed ${made.join(", ")}, which the command made`]),
    ...undone,
  ];
  // A file an MCP server runs is named by its path (configuration-chain.ts `fileChains`).
  const places = [
    ...LATER_RUN_CONFIGURATION.filter((name) => names.has(name)),
    ...[...names].filter((name) => !LATER_RUN_CONFIGURATION.includes(name)),
  ];
  return all.length === 0 ? undefined : protectedPlaceUndone(places, all);
}

/**
 * Undoes what the command (whose processes all ended with it) changed of `chains`, noted before
 * it: puts back each link it replaced or retargeted, then removes what it made at a missing
 * entry (the place itself, or an entry a link leads to when the place resolves now) and a mounted
 * entry made anew (another file at its path: {@link madeAnew}). A path that
 * cannot be put back or removed is named all the same.
 * @returns the names of the chains changed and what was undone, in words (empty: nothing).
 */
export async function undoChainChanges(
  chains: readonly ConfigurationChain[],
): Promise<{ names: Set<string>; undone: string[] }> {
  const names = new Set<string>();
  const replaced = new Map<string, RootEntry & { kind: "link" }>();
  for (const chain of chains) {
    for (const entry of chain.entries) {
      if (entry.kind === "link" && !sameLink(entry.path, entry.target)) {
        replaced.set(entry.path, entry);
        names.add(chain.name);
      }
    }
  }
  for (const link of replaced.values()) {
    await rm(link.path, { recursive: true, force: true }).catch(() => {});
    await symlink(link.target, link.path).catch(() => {});
  }
  const made = new Set<string>();
  for (const chain of chains) {
    for (const entry of chain.entries) {
      if (entry.kind === "mounted" && madeAnew(entry.path, entry.identity)) {
        made.add(entry.path);
        names.add(chain.name);
      }
    }
    const missing = chain.entries.find((entry) => entry.kind === "missing");
    const there = missing !== undefined && lstatSync(missing.path, { throwIfNoEntry: false });
    if (missing !== undefined && there && (missing.path === chain.path || resolves(chain.path))) {
      made.add(missing.path);
      names.add(chain.name);
    }
  }
  await Promise.all(
    [...made].map((path) => rm(path, { recursive: true, force: true }).catch(() => {})),
  );
  const undone = [
    ...(made.size === 0 ? [] : [`it removed ${[...made].join(", ")}, which the command made`]),
    ...[...replaced.values()].map(
      (link) =>
        `it put back the symbolic link ${link.path} (to ${link.target}), which the command replaced`,
    ),
  ];
  return { names, undone };
}

/**
 * Whether another file than the one noted (`identity`: device and inode) is at `path` now: the
 * folder holding the noted one was moved away, taking its mount along, and a new one made there.
 */
function madeAnew(path: string, identity: string | undefined): boolean {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return (
      identity !== undefined && stats !== undefined && `${stats.dev}:${stats.ino}` !== identity
    );
  } catch {
    return false; // ENOTDIR: nothing is there
  }
}

function sameLink(path: string, target: string): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats?.isSymbolicLink() === true && readlinkSync(path) === target;
}

/** Whether `path` leads to something (a link to nothing does not). */
function resolves(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR: nothing is there
  }
}
