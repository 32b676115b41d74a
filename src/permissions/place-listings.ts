/**
 * Which hidden places exist, read for one call of a file tool (hidden-places.ts `spellings`).
 * Most of the default places do not exist on a given machine, and most lie in a few folders (the
 * home folder holds about half of them, `~/.config` a fifth): one listing of such a folder answers
 * for every place in it, and for every place below a folder it lacks (`~/.pip/pip.conf` when the
 * home has no `.pip`), where an `lstat` each asked the kernel some fifty times a call
 * (bench/notes/perf36.md). A place the listings do not rule out is `lstat`ed, as before. Read at
 * every call, so a place made between two calls counts.
 */

import { lstatSync, readdirSync } from "node:fs";
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

/** A folder's entry names, as they are and in lower case; undefined when it cannot be listed. */
interface Listing {
  names: ReadonlySet<string>;
  lowerCaseNames: ReadonlySet<string>;
}

/**
 * Whether each of `places` exists (seen by an `lstat`, links not followed), for `places` all
 * absolute and spelled as `path.resolve` spells them. @returns a test taking one of `places`.
 */
export function placeExistence(places: readonly string[]): (place: string) => boolean {
  const listings = folderListings(places);
  return (place) =>
    !ruledOut(place, listings) && lstatSync(place, { throwIfNoEntry: false }) !== undefined;
}

/** The folders holding at least {@link LEAST_PLACES_LISTED} of `places`, listed now. */
function folderListings(places: readonly string[]): Map<string, Listing> {
  const held = new Map<string, number>();
  for (const place of places) {
    const folder = dirname(place);
    held.set(folder, (held.get(folder) ?? 0) + 1);
  }
  const listings = new Map<string, Listing>();
  for (const [folder, count] of held) {
    if (count < LEAST_PLACES_LISTED || tooLongToList.has(folder)) {
      continue;
    }
    const listing = listingOf(folder, count);
    if (listing !== undefined) {
      listings.set(folder, listing);
    }
  }
  return listings;
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
  return {
    names: new Set(names),
    lowerCaseNames: new Set(names.map((name) => name.toLowerCase())),
  };
}

/**
 * Whether the nearest listed folder above `place` lacks the entry on the way to it, so `place`
 * does not exist. A name found in another case only (a case-folding file system) is not ruled
 * out: its `lstat` decides, as it did for every place before.
 */
function ruledOut(place: string, listings: ReadonlyMap<string, Listing>): boolean {
  let below = place;
  for (let folder = dirname(place); folder !== below; below = folder, folder = dirname(folder)) {
    const listing = listings.get(folder);
    if (listing !== undefined) {
      const name = below.slice(folder === "/" ? 1 : folder.length + 1);
      return !listing.names.has(name) && !listing.lowerCaseNames.has(name.toLowerCase());
    }
  }
  return false;
}
