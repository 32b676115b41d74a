import { basename, relative, resolve } from "node:path";
import {
  LATER_RUN_CONFIGURATION,
  laterRunReason,
  PROTECTED_REASON_START,
  SERVER_PROGRAM_REASON,
} from "./policy.js";
import { isInside, landingPath } from "./real-paths.js";

/*
 * The places inside a writable root that the sandbox keeps read-only under every policy
 * (bubblewrap-arguments.ts mounts them read-only over themselves), and how a command that tried
 * to write one is told so (each reason starts with policy.ts `PROTECTED_REASON_START`). No
 * `--add-dir` or policy makes them writable inside the sandbox: the way out is to run the command
 * outside it (the permission question, or a face's setting for no sandbox), which
 * permissions/permission-mode.ts words per face. Loaded with the sandboxed runner, not at start.
 */

/** A protected place: how a path to it looks in a tool's message, and why it is kept read-only. */
interface ProtectedPlace {
  /** The place as the reason names it, e.g. `.git/hooks`. */
  name: string;
  /** Matches a path into it as a tool prints it (relative or absolute, submodules' too). */
  path: RegExp;
  /** Why writing it from the sandbox would reach outside the sandbox. */
  why: string;
}

/**
 * Why the places named `places` (of policy.ts `LATER_RUN_CONFIGURATION`) are kept: those kept
 * for the same reason (turnloop's own files, the start-up files) in one clause, `it` or `them`
 * when they are all the places named, else by their names.
 */
function whyKept(places: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const place of places) {
    const key = laterRunReason(place, "\u0000");
    groups.set(key, [...(groups.get(key) ?? []), place]);
  }
  const pronoun = (names: readonly string[]) =>
    places.length === names.length ? (names.length === 1 ? "it" : "them") : names.join(" and ");
  return [...groups].map(([key, names]) => key.replace("\u0000", pronoun(names))).join("; ");
}

/**
 * `.git/hooks` and `.git/config` of a root's repository (and of those in its folders and
 * theirs at any depth, `sub/.git`, `org/repo/.git`: workspace-walk.ts `WorkspaceEntries`), of its submodules' git
 * folders (`.git/modules/<name>/…`), the files through which git finds them (git-folders.ts
 * `LOCATING_FILES`), and the `.git` folder or file
 * itself (bound over itself: it cannot be moved), as git-folders.ts `gitProtection` mounts them,
 * and each root's policy.ts `LATER_RUN_CONFIGURATION`.
 */
const PROTECTED_PLACES: readonly ProtectedPlace[] = [
  {
    name: ".git/hooks",
    path: /(?:^|[\s'"`/])\.git\/(?:modules\/\S+\/)?hooks(?![\w.-])/,
    why: "git runs the hooks there later, outside the sandbox",
  },
  {
    name: ".git/config",
    path: /(?:^|[\s'"`/])\.git\/(?:modules\/\S+\/)?config(?![\w.-])/,
    why: "it configures git runs outside the sandbox later (core.hooksPath, aliases and core.fsmonitor run programs)",
  },
  {
    name: ".git's commondir, gitdir and config.worktree",
    path: /(?:^|[\s'"`/])\.git\/(?:(?:modules|worktrees)\/\S+\/)?(?:commondir|gitdir|config\.worktree)(?![\w.-])/,
    why: "git follows them to the config and hooks it reads and runs later, outside the sandbox",
  },
  {
    name: ".git",
    path: /(?:^|[\s'"`/])\.git(?![\w./-])/,
    why: "it holds the hooks and config git runs and reads later, outside the sandbox, so it cannot be moved or removed",
  },
  ...LATER_RUN_CONFIGURATION.map((name) => ({
    name,
    path: new RegExp(`(?:^|[\\s'"\`/])${name.replaceAll(".", "\\.")}(?![\\w.-])`),
    why: laterRunReason(name, "it"),
  })),
];

/**
 * The ways a read-only mount refuses a write, as tools print them (strerror): a read-only
 * folder (`EROFS`), a file bound over itself, which cannot be renamed onto (`EBUSY`: git's
 * `could not write config file .git/config: Device or resource busy`), or no permission
 * (`EACCES`, `EPERM`).
 */
const REFUSED_WRITE =
  /Read-only file system|\bEROFS\b|Device or resource busy|\bEBUSY\b|Permission denied|\bEACCES\b|Operation not permitted|\bEPERM\b/i;

/**
 * An entry of a writable root (its name, e.g. `cfg`) that one of policy.ts
 * `LATER_RUN_CONFIGURATION` (`place`) leads through, mounted read-only for a command (configuration-chain.ts).
 */
export interface LeadingEntry {
  entry: string;
  place: string;
}

/**
 * A place a command's sandbox hid (bubblewrap-arguments.ts `BubblewrapInvocation`): `name` as the
 * reason names it, `spellings` the paths a tool's message may show for it (absolute, relative to
 * the command's folder).
 */
export interface HiddenMention {
  name: string;
  spellings: readonly string[];
  turnloopHome: boolean;
}

/**
 * A place kept read-only that is known by its path: a hooks folder or included config file a
 * repository's config names (configured-places.ts `ConfiguredPlace`), or a file an MCP server runs
 * (server-programs.ts).
 */
export interface KeptFile {
  path: string;
  kind: "hooks" | "include" | "server";
}

/** Why each kind of {@link KeptFile} is kept, as a clause about `it`. */
const KEPT_FILE_REASONS: Record<KeptFile["kind"], string> = {
  hooks:
    "a repository's core.hooksPath names it, and git runs the hooks there later, outside the sandbox",
  include:
    "a repository's config includes it (include.path), and git reads it as config later, outside the sandbox (core.fsmonitor, aliases run programs)",
  server: SERVER_PROGRAM_REASON.replace("WHAT", "it"),
};

/**
 * Why a failed command's `output` shows a write refused on a protected place, on one of
 * `leading` (`rm -rf cfg` when `.turnloop -> cfg/tl`) or in one of `configured` (configured-places.ts
 * `ConfiguredPlace`s, real paths, named by their last component in the output) or in one of
 * `hidden` (named by a path): the first line that names one and a
 * refused write, as `the sandbox keeps <place> read-only whatever the settings: <why> (<the
 * error as printed>)`; `undefined` when no line does.
 */
export function protectedPlaceStop(
  output: string,
  leading: readonly LeadingEntry[] = [],
  configured: readonly KeptFile[] = [],
  hidden: readonly HiddenMention[] = [],
): string | undefined {
  const places = protectedPlaces(leading, configured, hidden);
  for (const line of output.split("\n")) {
    const stop = lineStop(line, places);
    if (stop !== undefined) {
      return stop;
    }
  }
  return undefined;
}

/**
 * Each line of `output` that shows a refused write, in order, with the reason
 * {@link protectedPlaceStop} gives when it names a protected place (`reason`), else none
 * (`line`, as printed, for the caller to word).
 */
export function refusedWriteLines(
  output: string,
  leading: readonly LeadingEntry[] = [],
  configured: readonly KeptFile[] = [],
  hidden: readonly HiddenMention[] = [],
): Array<{ line: number; reason?: string }> {
  const places = protectedPlaces(leading, configured, hidden);
  return output.split("\n").flatMap((line, index) => {
    if (!REFUSED_WRITE.test(line)) {
      return [];
    }
    const reason = lineStop(line, places);
    return [reason === undefined ? { line: index } : { line: index, reason }];
  });
}

/** The places {@link protectedPlaceStop} looks for, most particular first. */
function protectedPlaces(
  leading: readonly LeadingEntry[],
  configured: readonly KeptFile[],
  hidden: readonly HiddenMention[],
): ProtectedPlace[] {
  return [
    ...hidden.map(({ name, spellings, turnloopHome }) => ({
      name,
      path: new RegExp(`(?:^|[\\s'"\`])(?:${spellings.map(escaped).join("|")})(?=$|[/\\s'"\`:])`),
      why: turnloopHome
        ? "turnloop hides its own folder (TURNLOOP_HOME: the session logs) from sandboxed commands"
        : "it is one of the places the sandbox hides from commands (credentials and sockets; sandbox.hidden in a config file)",
    })),
    ...configured.map(({ path, kind }) => ({
      name: path,
      path: new RegExp(`(?:^|[\\s'"\`/])${escaped(basename(path))}(?![\\w.-])`),
      why: KEPT_FILE_REASONS[kind],
    })),
    ...PROTECTED_PLACES,
    ...leading.map(({ entry, place }) => ({
      name: entry,
      path: new RegExp(`(?:^|[\\s'"\`/])${escaped(entry)}(?![\\w.-])`),
      why: `${place} leads through it, and ${laterRunReason(place, place)}`,
    })),
  ];
}

/** The reason `line` gives, when it shows a write refused on one of `places`. */
function lineStop(line: string, places: readonly ProtectedPlace[]): string | undefined {
  const refused = REFUSED_WRITE.exec(line);
  const place = refused === null ? undefined : places.find((p) => p.path.test(line));
  return refused === null || place === undefined
    ? undefined
    : `${PROTECTED_REASON_START}${place.name} read-only whatever the settings: ${place.why} (${refused[0]})`;
}

/** How many lines showing a refused write {@link withLandingPaths} reads. */
const LANDING_LINES = 20;

/**
 * `output` with each line that shows a refused write followed by where the paths it names land
 * (real-paths.ts `landingPath` of each word read against `cwd`, relative to the one of
 * `realRoots` holding it), when that reads differently: `link-to-vscode/launch.json: Read-only
 * file system` names `.vscode/launch.json` too, so {@link protectedPlaceStop} names the place the
 * write went to, not the path as printed. Only the first {@link LANDING_LINES} such lines are
 * read (`find /` prints thousands of `Permission denied`).
 */
export function withLandingPaths(
  output: string,
  cwd: string,
  realRoots: readonly string[],
): string {
  if (!REFUSED_WRITE.test(output)) {
    return output;
  }
  let refused = 0;
  return output
    .split("\n")
    .map((line) => {
      if (!REFUSED_WRITE.test(line) || ++refused > LANDING_LINES) {
        return line;
      }
      const landings = line.split(/\s+/).flatMap((word) => {
        const path = word.replace(/^['"`]+|['"`:,;]+$/g, "");
        if (path === "") {
          return [];
        }
        const landing = landingPath(resolve(cwd, path));
        const root = realRoots.find((each) => isInside(landing, each));
        const shown = root === undefined ? landing : relative(root, landing);
        return shown === path || shown === "" ? [] : [shown];
      });
      return landings.length === 0 ? line : `${line} ${landings.join(" ")}`;
    })
    .join("\n");
}

function escaped(name: string): string {
  return name.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Why a command that changed one of policy.ts `LATER_RUN_CONFIGURATION` where the mounts cannot
 * stop it (made one, or what one leads to, where nothing was; replaced a symbolic link it leads
 * through: configuration-guard.ts) is reported stopped: `places` are the names, `undone` what the sandbox undid, already done.
 */
export function protectedPlaceUndone(places: readonly string[], undone: readonly string[]): string {
  const why = whyKept(places);
  return `${PROTECTED_REASON_START}${places.join(" and ")} read-only whatever the settings: ${why}; ${undone.join("; ")}`;
}

/**
 * Why a command that made a git repository, or a file through which git finds a repository's
 * config and hooks, where the mounts cannot stop it (a `.git` where there was none, a git folder
 * in `.git/modules` or `.git/worktrees`, a `.git/commondir` or `config.worktree`, a hooks folder
 * or included config file; or replaced a symbolic link one of the last two leads through:
 * git-guard.ts) is reported stopped: `undone` says what the sandbox undid, already done.
 */
export function gitRepositoryUndone(undone: readonly string[]): string {
  return (
    `${PROTECTED_REASON_START}.git read-only whatever the settings: git runs a repository's ` +
    "hooks and reads its config later, outside the sandbox, so a command cannot make one or " +
    `change where git finds them; ${undone.join("; ")}`
  );
}
