import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { NESTED_CONFIGURATION } from "./policy.js";

/**
 * How many folders one walk lists at most, over all writable roots, shallowest first: each costs
 * one `lstat` a walk while it is unchanged, a listing when it changed (bench/notes/sandbox31.md). Folders past
 * it are not entered (README, "Sandbox": tool configuration there stays writable); this
 * repository has some 70 besides `node_modules`.
 */
export const WALK_FOLDER_LIMIT = 2_000;

/**
 * Folders the walk does not enter: npm's packages (thousands of folders, and a package's own
 * `.git` or `.npmrc` is not one the user commits in or runs npm in). `.git` folders are not
 * entered either.
 */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/**
 * How long after a folder changed its listing is read again at every walk, in ms: a change made
 * in the same clock tick as the listing leaves the folder's ctime as it was (the kernel stamps
 * files with a coarse clock; git's index has the same "racy" case).
 */
const RACY_MS = 2_000;

/** {@link NESTED_CONFIGURATION} as a set, for the walk's look-up of each name it lists. */
const NESTED_NAMES: ReadonlySet<string> = new Set(NESTED_CONFIGURATION);

/** What one walk of the writable roots finds ({@link WorkspaceWalk.entriesOf}). */
export interface WorkspaceEntries {
  /**
   * The entries named `.git` (folders, files, links) in the roots and in every folder the walk
   * entered (`sub/.git`, `org1/repoA/.git`, where a trial planted a hook the user's later `git
   * commit` ran, `vendor/lib/deep/.git`, a submodule's `.git` file): one inside a skipped folder
   * or past {@link WALK_FOLDER_LIMIT} is neither protected nor removed (README, "Sandbox").
   */
  git: string[];
  /**
   * The entries named as one of policy.ts `NESTED_CONFIGURATION` (`.npmrc`, `.vscode` …,
   * whatever they are) in the roots' folders at any depth (`pkg/.npmrc`, `a/b/c/.vscode`); the
   * roots' own are not in it: configuration-chain.ts keeps those.
   */
  nested: string[];
}

/** One folder's listing as the walk keeps it, with what the folder was when it was read. */
interface Listing {
  /** Device, inode and change time (ms) of the folder when it was read. */
  stamp: string;
  /** Whether the stamp is old enough to trust ({@link RACY_MS}). */
  settled: boolean;
  folders: string[];
  git: boolean;
  configuration: string[];
}

/**
 * The walk of the writable roots that finds their `.git` entries and their folders' tool
 * configuration, every folder down (never entering {@link SKIPPED_FOLDERS} nor following a
 * symbolic link), each folder's listing kept from one walk to the next while the folder's change
 * time (`ctime`, which a command cannot set back, unlike `mtime`) and identity stay the same:
 * an unchanged folder costs one `lstat`. One per runner: the mounts and the guards before and
 * after each command read it (sandboxed-runner.ts).
 */
export class WorkspaceWalk {
  private listings = new Map<string, Listing>();

  /**
   * The {@link WorkspaceEntries} of `roots` (real paths), breadth first and in name order, at most
   * {@link WALK_FOLDER_LIMIT} folders. With `after` (the check after a command) there is no limit:
   * the walk enters the folders the walk before it entered and every folder made since, however
   * many the command made, never one the walk before left out for the limit.
   */
  entriesOf(
    roots: readonly string[],
    { after = false }: { after?: boolean } = {},
  ): WorkspaceEntries {
    const entries: WorkspaceEntries = { git: [], nested: [] };
    const before = this.listings;
    const seen = new Map<string, Listing>();
    const queue = roots.map((path) => ({ path, depth: 0 }));
    // An index, not `shift()`, which moves the whole queue each time.
    for (let index = 0, next = queue[0]; next !== undefined; next = queue[++index]) {
      const { path, depth } = next;
      if (seen.has(path)) {
        continue;
      }
      const kept = before.get(path);
      const listing = this.listingOf(path, kept);
      seen.set(path, listing);
      // Paths by concatenation: a `join` per folder was most of a walk's time.
      const prefix = path === "/" ? "/" : `${path}/`;
      if (listing.git) {
        entries.git.push(`${prefix}.git`);
      }
      if (depth > 0) {
        entries.nested.push(...listing.configuration.map((name) => `${prefix}${name}`));
      }
      // After a command, a folder listed before and not entered was past the limit.
      const listedBefore = !after || kept === undefined ? undefined : new Set(kept.folders);
      for (const folder of listing.folders) {
        const child = `${prefix}${folder}`;
        const enter = after
          ? before.has(child) || listedBefore?.has(folder) !== true
          : queue.length < WALK_FOLDER_LIMIT;
        if (enter) {
          queue.push({ path: child, depth: depth + 1 });
        }
      }
    }
    this.listings = seen;
    return entries;
  }

  /** The listing of `folder`: `kept` when the folder is unchanged since, else read now. */
  private listingOf(folder: string, kept: Listing | undefined): Listing {
    const startedAt = Date.now();
    const stats = lstatOf(folder);
    if (stats === undefined || !stats.isDirectory()) {
      return { stamp: "", settled: false, folders: [], git: false, configuration: [] };
    }
    const stamp = `${stats.dev}:${stats.ino}:${stats.ctimeMs}`;
    if (kept?.settled === true && kept.stamp === stamp) {
      return kept;
    }
    const listing: Listing = {
      stamp,
      settled: stats.ctimeMs < startedAt - RACY_MS,
      folders: [],
      git: false,
      configuration: [],
    };
    for (const entry of entriesOf(folder)) {
      if (entry.name === ".git") {
        listing.git = true;
      } else if (NESTED_NAMES.has(entry.name)) {
        listing.configuration.push(entry.name);
      }
      // A symbolic link to a folder is not followed.
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) {
        listing.folders.push(entry.name);
      }
    }
    // In name order, so that the folders a limited walk enters do not depend on the disk's order.
    listing.folders.sort();
    return listing;
  }
}

/**
 * The `.git` entries of `roots` (writable roots, real paths) at any depth the walk reaches
 * ({@link WorkspaceEntries.git}), read by a walk of their own (nothing kept).
 */
export function gitEntriesOf(roots: readonly string[]): string[] {
  return new WorkspaceWalk().entriesOf(roots).git;
}

function entriesOf(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
