/**
 * The places the file tools keep out of (README, "Sandbox"): the places the sandbox hides from
 * commands (tools/sandbox/real-paths.ts `hiddenPlacePaths`: the user's credentials and histories,
 * `~/.turnloop`, `TURNLOOP_HOME`, the runtime folder, Docker's socket, `sandbox.hidden`), under every sandbox
 * policy, `danger-full-access` included, and in every permission mode, `--allow-all-tools`
 * included. A call of `view`, `grep`, `glob`, `edit` or `create` whose path lies in one, as given
 * or through symbolic links, is refused before anything is asked; a search or listing of a folder
 * that holds one leaves it out. Only an allow rule of the call's own tool whose pattern lies
 * inside the place names it and lets the call through (`--allow-tool 'view(~/.ssh/config)'`,
 * `view(~/.aws/*)`; not `view`, `view(**)` nor `--allow-all-tools`). The session's own folder
 * (saved outputs, uploads: what turnloop tells the model to read) stays open to the reading
 * tools. A process's folder under `/proc` is hidden too ({@link processFolder}). A `grep` of a
 * folder that no hidden place lies in or holds judges no file at all.
 * Loaded at the first call of a file tool, not at start-up.
 */

import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import picomatch from "picomatch";
import {
  type ExistencePlan,
  existencePlan,
  listedPlaces,
} from "../tools/sandbox/place-listings.js";
import { normalAbsolutePath } from "../tools/sandbox/policy.js";
import { isInside } from "../tools/sandbox/real-paths.js";
import type { PermissionRule } from "./permission-mode.js";

/** The places a session's file tools keep out of; every path absolute. */
export interface HiddenPlaces {
  /** The hidden places as configured (links not resolved). */
  places: readonly string[];
  /** A folder inside them that the reading tools may still read: the session's own. */
  open?: string;
}

/** The tools that take paths and read or write what they name. */
const FILE_TOOLS: readonly string[] = ["view", "grep", "glob", "edit", "create"];
/** Those of {@link FILE_TOOLS} that only read. */
const READING_TOOLS: readonly string[] = ["view", "grep", "glob"];

/** What the hidden places mean for one call: a refusal, or the paths its search leaves out. */
export interface HiddenPlaceJudgement {
  /** Why the call is refused, for the model and the user; absent: it may go on. */
  refusal?: string;
  /** The paths (absolute) a search or listing by the call must leave out. */
  hidden?: (path: string) => boolean;
}

/**
 * Judges a call of `toolName` on `paths` (absolute, as given and with links resolved) against
 * `hiddenPlaces`, with the session's `allow` rules (patterns absolute or relative to `cwd`).
 * Undefined for a tool that is not one of the file tools. Synchronous: the places are read on the
 * calling thread, a listing of each folder holding several of them or an `existsSync` each (none
 * for a place its folder's listing names), and
 * a `realpath` each of those that exist, at the first call judged in a turn of the event loop,
 * for every call of that turn ({@link readThisTurn}).
 */
export function judgeHiddenPlaces(
  hiddenPlaces: HiddenPlaces,
  toolName: string,
  paths: readonly string[],
  allow: readonly PermissionRule[],
  cwd: string,
): HiddenPlaceJudgement | undefined {
  if (!FILE_TOOLS.includes(toolName)) {
    return undefined;
  }
  // A place that is the home folder or holds it (TURNLOOP_HOME=$HOME) would hide every file of
  // the user's: it is left out, as a place the sandbox could not hide without hiding the home.
  // Every path is spelled as `path.resolve` spells it and compared as text (real-paths.ts
  // `isInside`), not through `path.relative`: two `resolve`s per place and path, a few hundred a
  // call, made V8 optimise Node's path code (bench/notes/rss33.md).
  const home = normalAbsolutePath(homedir());
  const places = placesThisTurn(planOf(hiddenPlaces.places, home));
  const open = READING_TOOLS.includes(toolName) ? hiddenPlaces.open : undefined;
  const openSpellings = open === undefined ? [] : openThisTurn(normalAbsolutePath(open));
  const patterns = allow.flatMap((rule) =>
    rule.tool === toolName && rule.pattern !== undefined ? [resolve(cwd, rule.pattern)] : [],
  );
  const placeOf = (given: string): string | undefined => {
    const path = normalAbsolutePath(given);
    if (openSpellings.some((folder) => isInside(path, folder))) {
      return undefined;
    }
    const place = places.find((each) => isInside(path, each.path)) ?? processFolder(path);
    const named = patterns.some(
      (pattern) =>
        place !== undefined &&
        isInside(normalAbsolutePath(picomatch.scan(pattern).base), place.path) &&
        picomatch.isMatch(path, pattern, { dot: true }),
    );
    return named ? undefined : place?.shown;
  };
  const refused = paths.map(placeOf).find((place) => place !== undefined);
  if (refused !== undefined) {
    return { refusal: hiddenPlaceRefusal(toolName, refused) };
  }
  const searchesProcesses = paths.some((given) => {
    const path = normalAbsolutePath(given);
    return path === "/" || path === "/proc" || processFolder(path) !== undefined;
  });
  if (
    toolName === "grep" &&
    !searchesProcesses &&
    !places.some((place) => meets(place.path, paths))
  ) {
    // grep reads only below its path (ripgrep follows no links; grep-fallback.ts keeps to it
    // too): with no hidden place there, nothing it finds can be in one, and no file is judged.
    return {};
  }
  return { hidden: (path) => placeOf(path) !== undefined };
}

/**
 * A process's folder under `/proc` (`/proc/<pid>`, `/proc/self`, `/proc/thread-self`) that
 * `path` (absolute, spelled normally) lies in: a hidden place for the file tools, every
 * process's, since turnloop's own and its parent shell's hold the provider keys (`environ`),
 * and `mem`, `cmdline` and `fd/` show a process's memory, arguments and open files (a trial read
 * the key from `/proc/self/environ` with yes/no `grep` counts). The sandbox agrees: its own pid
 * namespace mounts a `/proc` that shows none of the host's processes. The rest of `/proc`
 * (`cpuinfo`, `meminfo`) stays readable.
 */
function processFolder(path: string): PlaceSpelling | undefined {
  const folder = /^\/proc\/(?:\d+|self|thread-self)(?=\/|$)/.exec(path)?.[0];
  return folder === undefined ? undefined : { path: folder, shown: folder };
}

/** Whether `place` is one of `paths`, lies inside one or holds one. */
function meets(place: string, paths: readonly string[]): boolean {
  return paths.some((path) => isInside(place, path) || isInside(path, place));
}

/**
 * Why a call in the hidden place `place` is refused, and the one setting that allows it: an
 * allow rule naming the place (`--allow-tool`, or `permissions.allow` in a config file).
 */
function hiddenPlaceRefusal(toolName: string, place: string): string {
  const rule = `${toolName}(${place}/**)`;
  return (
    `${place} is hidden from the agent: it is one of the places the sandbox hides from commands ` +
    "(credentials, shell histories, turnloop's session logs; README, Sandbox), and the file " +
    `tools keep out of them too. Do not try to reach it another way. Only the user can allow it, ` +
    `with an allow rule naming the place: --allow-tool '${rule}' (or "${rule}" in ` +
    "permissions.allow of a config file)."
  );
}

/** A hidden place: its path as configured or resolved, and how a refusal names it. */
interface PlaceSpelling {
  path: string;
  shown: string;
}

/**
 * Each place (absolute, spelled as `path.resolve` spells it) as configured and, when a link leads
 * elsewhere, as its real path right after it. Read once a turn of the event loop
 * ({@link readThisTurn}: a link made before the turn counts). A
 * place that does not exist (most of them, on most machines) is ruled out by a listing of a folder
 * holding several places (tools/sandbox/place-listings.ts); one that may exist is resolved when
 * `existsSync` finds what it leads to (no `Stats` object, unlike `lstat`: about 9 KiB of a tool
 * turn's allocations, bench/notes/turn39.md; a link that leads nowhere keeps its configured
 * spelling, as a `realpath` of it fails), not by a `realpath` that throws (about a third of a tool
 * turn's allocations, bench/notes/turn32.md). It is resolved on the calling thread
 * (`realpathSync.native`, the same `realpath(3)` as `fs/promises`' `realpath`): handing each to the
 * thread pool cost the main thread about three times as much (bench/notes/turn34.md). The
 * spellings as configured are made once per plan ({@link planOf}); a call whose places resolve to
 * themselves answers that array, unchanged.
 */
function spellings(
  planned: PlannedPlaces,
  listed: ReadonlyArray<"absent" | "named" | "unknown">,
): readonly PlaceSpelling[] {
  const configured = planned.spelled;
  let spelled: PlaceSpelling[] | undefined;
  for (let index = 0; index < configured.length; index++) {
    const place = configured[index];
    if (place === undefined) {
      continue;
    }
    // A place its folder's listing names is resolved at once: `realpath` fails only where
    // `existsSync` would have said false (a link that leads nowhere), which is rare.
    const seen = listed[index];
    const real =
      seen === "named" || (seen !== "absent" && existsSync(place.path))
        ? realPathOr(place.path)
        : place.path;
    if (real !== place.path) {
      spelled ??= configured.slice(0, index + 1);
      spelled.push({ path: real, shown: place.shown });
    } else {
      spelled?.push(place);
    }
  }
  return spelled ?? configured;
}

/**
 * What the file system said this turn of the event loop: each plan's {@link spellings} and each
 * open folder's {@link withRealPath}, read at the first call judged in the turn and kept for the
 * calls judged after it in the same turn (every session's: a busy server judges many calls a
 * turn, each of which read the same home, bench/notes/server40.md), dropped in the loop's check
 * phase (`setImmediate`). A call is judged on what the file system holds when its turn's first
 * call is: a place made before then counts, one made later counts from the next turn on, as
 * if the calls of one turn were judged at once. Undefined: nothing read since the last drop.
 */
let readThisTurn:
  | {
      places: Map<PlannedPlaces, readonly PlaceSpelling[]>;
      open: Map<string, readonly string[]>;
    }
  | undefined;

/** {@link readThisTurn}, made with its drop at the first reading of a turn. */
function thisTurn(): NonNullable<typeof readThisTurn> {
  if (readThisTurn === undefined) {
    readThisTurn = { places: new Map(), open: new Map() };
    // Unreferenced: a process with nothing else to do ends without waiting for the drop.
    setImmediate(() => {
      readThisTurn = undefined;
    }).unref();
  }
  return readThisTurn;
}

/** The places of `planned` as they are this turn ({@link readThisTurn}). */
function placesThisTurn(planned: PlannedPlaces): readonly PlaceSpelling[] {
  const read = thisTurn().places;
  let places = read.get(planned);
  if (places === undefined) {
    places = spellings(planned, listedPlaces(planned.plan));
    read.set(planned, places);
  }
  return places;
}

/** The open folder `open` (absolute, spelled normally) as it is this turn ({@link readThisTurn}). */
function openThisTurn(open: string): readonly string[] {
  const read = thisTurn().open;
  let spellingsOfOpen = read.get(open);
  if (spellingsOfOpen === undefined) {
    spellingsOfOpen = withRealPath(open);
    read.set(open, spellingsOfOpen);
  }
  return spellingsOfOpen;
}

/** `place` (absolute, spelled normally) and, when a link leads elsewhere, its real path. */
function withRealPath(place: string): string[] {
  const real = existsSync(place) ? realPathOr(place) : place;
  return real === place ? [place] : [place, real];
}

/** How a refusal names `place` (absolute, spelled normally): `~/…` inside the home folder. */
function shownPlace(place: string, home: string): string {
  return home !== "/" && place !== home && isInside(place, home) && isAbsolute(place)
    ? `~/${place.slice(home.length + 1)}`
    : place;
}

/** A session's places as {@link planOf} keeps them: how to read them, and how each is spelled. */
interface PlannedPlaces {
  plan: ExistencePlan;
  /** {@link ExistencePlan.places}' spellings as configured, in their order. */
  spelled: readonly PlaceSpelling[];
}

/**
 * The {@link ExistencePlan} of a session's places (`configured`, as the sandbox lists them:
 * session/sandbox-setup.ts keeps one array per run), spelled normally, without any that is the
 * home folder or holds it, with their spellings; made from their text once and kept while the list
 * and the home stay the same (compared string by string, so a list changed in place is planned
 * again).
 */
function planOf(configured: readonly string[], home: string): PlannedPlaces {
  const kept = plans.get(configured);
  if (
    kept !== undefined &&
    kept.home === home &&
    kept.configured.length === configured.length &&
    kept.configured.every((place, index) => place === configured[index])
  ) {
    return kept.planned;
  }
  const places = configured.map(normalAbsolutePath).filter((place) => !isInside(home, place));
  const plan = existencePlan(places);
  const spelled = places.map((place) => ({ path: place, shown: shownPlace(place, home) }));
  const planned = { plan, spelled };
  plans.set(configured, { home, configured: [...configured], planned });
  return planned;
}

/** {@link planOf}'s plans, by the list of places they were made for. */
const plans = new WeakMap<
  readonly string[],
  { home: string; configured: readonly string[]; planned: PlannedPlaces }
>();

/** The real path of `place`, or `place` itself when it cannot be resolved. */
function realPathOr(place: string): string {
  try {
    return realpathSync.native(place);
  } catch {
    return place;
  }
}
