/**
 * Which hidden places exist, read for the calls of a file tool judged in one turn of the event
 * loop (permissions/hidden-places.ts `readThisTurn`) and for each sandboxed command
 * (bubblewrap-arguments.ts `hiddenPlaces`, bench/notes/sandbox37.md).
 * Most of the default places do not exist on a given machine, and most lie in a few folders (the
 * home folder holds about half of them, `~/.config` a fifth): one listing of such a folder answers
 * for every place in it, and for every place below a folder it lacks (`~/.pip/pip.conf` when the
 * home has no `.pip`), where an `lstat` each asked the kernel some seventy times a call
 * (bench/notes/perf36.md). A place the listings do not rule out is looked at by the caller, as
 * before (the sandbox `lstat`s it as it resolves it; the file tools ask `existsSync`). Read at
 * every call of {@link ruledOutPlaces}, so a place made between two calls counts; what is worked
 * out once per list of places ({@link existencePlan}) is text only.
 */

import { readdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * How many places (absolute, spelled normally) a folder must hold directly before it is listed:
 * a listing costs about four `lstat`s of a missing path, plus a little per entry.
 */
const LEAST_PLACES_LISTED = 4;

/**
 * A folder is listed while its entries number at most this many times the places it holds; a
 * longer one (a home of a thousand entries) costs more to list than its places' `lstat`s, and is
 * `lstat`ed place by place from then on, in this process (a choice of method, not of answers).
 */
const MOST_ENTRIES_PER_PLACE = 8;

/** Folders found too long to list ({@link MOST_ENTRIES_PER_PLACE}). */
const tooLongToList = new Set<string>();

/**
 * Where a place is looked up: the listed folder nearest above it, and the entry on the way, in
 * lower case.
 */
interface Lookup {
  folder: string;
  lowerCaseName: string;
}

/** How {@link ruledOutPlaces} reads a list of places; made from their text alone. */
export interface ExistencePlan {
  /** The places, absolute and spelled as `path.resolve` spells them. */
  readonly places: readonly string[];
  /** The folders to list, each with the number of places it holds directly. */
  readonly folders: ReadonlyMap<string, number>;
  /** For each place, in order, where a listing may rule it out; undefined: `lstat` it. */
  readonly lookups: ReadonlyArray<Lookup | undefined>;
}

/** The plan for `places` (absolute, spelled normally): which folders to list, where to look. */
export function existencePlan(places: readonly string[]): ExistencePlan {
  const held = new Map<string, number>();
  for (const place of places) {
    const folder = dirname(place);
    held.set(folder, (held.get(folder) ?? 0) + 1);
  }
  const folders = new Map([...held].filter(([, count]) => count >= LEAST_PLACES_LISTED));
  const lookups = places.map((place) => lookupOf(place, folders));
  return { places, folders, lookups };
}

function lookupOf(place: string, folders: ReadonlyMap<string, number>): Lookup | undefined {
  let below = place;
  for (let folder = dirname(place); folder !== below; below = folder, folder = dirname(folder)) {
    if (folders.has(folder)) {
      const name = below.slice(folder === "/" ? 1 : folder.length + 1);
      return { folder, lowerCaseName: name.toLowerCase() };
    }
  }
  return undefined;
}

/**
 * A folder's entry names in lower case: a name found as it is is found in lower case too, so one
 * set answers both questions of {@link ruledOutPlaces}.
 */
interface Listing {
  lowerCaseNames: ReadonlySet<string>;
}

/**
 * Whether a listing made now shows that each of `plan`'s places is not there, in their order: the
 * nearest listed folder above it lacks the entry on the way to it. A name found there in another
 * case only (a case-folding file system) rules nothing out, nor does a folder that could not be
 * listed or that no listing answers for: such a place may exist, for an `lstat` to tell.
 */
export function ruledOutPlaces(plan: ExistencePlan): boolean[] {
  return listedPlaces(plan).map((listed) => listed === "absent");
}

/**
 * What a listing made now says of each of `plan`'s places, in their order: `absent` as in
 * {@link ruledOutPlaces}; `named` when the place is itself an entry of its listed folder (its
 * name found, in some case: it may exist, so an `existsSync` before resolving it adds nothing,
 * hidden-places.ts); `unknown` otherwise.
 */
export function listedPlaces(plan: ExistencePlan): Array<"absent" | "named" | "unknown"> {
  const listings = new Map<string, Listing | undefined>();
  for (const [folder, count] of plan.folders) {
    listings.set(folder, tooLongToList.has(folder) ? undefined : listingOf(folder, count));
  }
  return plan.lookups.map((lookup, index) => {
    const listing = lookup === undefined ? undefined : listings.get(lookup.folder);
    if (lookup === undefined || listing === undefined) {
      return "unknown";
    }
    if (!listing.lowerCaseNames.has(lookup.lowerCaseName)) {
      return "absent";
    }
    return dirname(plan.places[index] ?? "") === lookup.folder ? "named" : "unknown";
  });
}

function listingOf(folder: string, places: number): Listing | undefined {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return undefined;
  }
  if (names.length > places * MOST_ENTRIES_PER_PLACE) {
    tooLongToList.add(folder);
  }
  return { lowerCaseNames: new Set(names.map((name) => name.toLowerCase())) };
}
