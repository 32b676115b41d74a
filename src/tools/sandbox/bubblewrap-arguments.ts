import { join, resolve } from "node:path";
import { API_KEY_VARIABLES } from "../../llm/models.js";
import { configurationMounts, configuredPlacesIn } from "./configuration-chain.js";
import { gitUserOf } from "./configured-places.js";
import { gitFolderBinds, gitProtection, gitReadOnlyMounts } from "./git-folders.js";
import { type ExistencePlan, existencePlan, ruledOutPlaces } from "./place-listings.js";
import {
  DEFAULT_TMPFS_SIZE_MIB,
  normalAbsolutePath,
  type SandboxPolicy,
  type SandboxSettings,
} from "./policy.js";
import { hiddenPlacePaths, isInside, RealPaths } from "./real-paths.js";
import { serverProgramsIn } from "./server-programs.js";
import { unixSocketFilter } from "./unix-socket-filter.js";
import { type WorkspaceEntries, WorkspaceWalk } from "./workspace-walk.js";

/**
 * The namespaces and privileges of every sandboxed command (bubblewrap ≥ 0.8.0, bwrap(1)): its
 * own user, pid, ipc, uts and cgroup namespaces, no further user namespaces inside, no
 * capabilities (also when turnloop runs as root), its own session (no terminal to inject input
 * into), and killed with the process that started it. The command's shell is the first process
 * of its pid namespace (`--as-pid-1`): bwrap forks no reaper to be pid 1 (bubblewrap.c
 * `do_init`), one process start less a command (bench/notes/sandbox34.md), and the namespace
 * still ends with the shell, every process the command left with it (pid_namespaces(7)). The
 * kernel drops a signal sent to a namespace's first process from inside it unless that process
 * handles it (pid_namespaces(7)); the runner's shell has an `EXIT` trap (left-running.ts), for
 * which bash handles the signals that end a shell, so `kill $$` or its own write to a closed pipe
 * ends it as before; only SIGKILL and SIGSTOP it sends itself are dropped (README, "Sandbox").
 */
const ISOLATION_OPTIONS: readonly string[] = [
  "--die-with-parent",
  "--new-session",
  "--unshare-user",
  "--disable-userns",
  "--unshare-pid",
  "--as-pid-1",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--cap-drop",
  "ALL",
];

/** `--size <bytes> --tmpfs <path>`: a memory file system of at most `sizeMiB` at `path`. */
function cappedTmpfs(path: string, sizeMiB: number): string[] {
  return ["--size", String(sizeMiB * 1024 * 1024), "--tmpfs", path];
}

/**
 * Settings for tools that retry a failed connection, set where there is no network to retry
 * for: npm retries a failed fetch twice, backing off 10 s then 60 s (its `fetch-retries`,
 * `fetch-retry-mintimeout` and `fetch-retry-maxtimeout` defaults), so `npm view` took some 72 s
 * to fail in the network-less sandbox against 2 s with none (bench/notes/notices.md). Name
 * lookups themselves already fail at once there (`EAI_AGAIN`, no resolver is reachable).
 */
const OFFLINE_ENVIRONMENT: readonly string[] = ["--setenv", "npm_config_fetch_retries", "0"];

/**
 * Tools' caches that the user's home holds, read-only in the sandbox unless a writable root holds
 * it: `npm install` of a tarball failed with `ENOENT: no such file or directory, mkdir
 * '~/.npm/_cacache'`. Each such command gets one in its `/tmp` instead (private and fresh per
 * command, or the host folder {@link SandboxSettings.temporaryDirectory}), named in the variable
 * the tools read: npm's (`~/.npm`, `npm_config_cache`), and the XDG base
 * directories' (`~/.cache`, `XDG_CACHE_HOME`: pip, Go's build cache, yarn 1 …). The user's own
 * cache is not read then (`npm install --offline` finds nothing in it).
 */
const PRIVATE_CACHES: readonly { variable: string; inHome: string; path: string }[] = [
  { variable: "npm_config_cache", inHome: ".npm", path: "/tmp/.npm" },
  { variable: "XDG_CACHE_HOME", inHome: ".cache", path: "/tmp/.cache" },
];

/** The {@link PRIVATE_CACHES} variables for a command whose writable roots do not hold the cache. */
function cacheEnvironment(home: string, writableRoots: readonly string[]): string[] {
  return PRIVATE_CACHES.filter(
    ({ inHome }) => !writableRoots.some((root) => isInside(join(home, inHome), root)),
  ).flatMap(({ variable, path }) => ["--setenv", variable, path]);
}

/**
 * The bubblewrap arguments that run `bash -c command` under `policy` (never
 * `danger-full-access`, which runs no sandbox); unless Unix sockets are allowed they hold
 * `--seccomp 3`, whose filter {@link bubblewrapInvocation} gives with them. Mounts come in the order that makes the narrower
 * rule win, since a later mount shadows an earlier one: the whole file system read-only; the
 * writable roots (`workspace-write`); fresh `/dev` and `/proc` and a private `/tmp` (over a root
 * that holds them, e.g. a cwd of `/`; `/tmp` and `/dev/shm` capped at policy.ts `DEFAULT_TMPFS_SIZE_MIB`
 * unless the settings say otherwise); the roots inside `/tmp` (read-only under `read-only`);
 * what each root's `.turnloop`, `.mcp.json` and the rest of policy.ts `LATER_RUN_CONFIGURATION`
 * resolve through, and the tool configuration in its folders at any depth (`pkg/.npmrc`,
 * `a/b/c/.vscode`: workspace-walk.ts `WorkspaceWalk`) and the files MCP servers run
 * (configured-places.ts: `sh tools/mcp.sh` in `.mcp.json`), read-only
 * (configuration-chain.ts `configurationMounts`) between the git folders of each root bound over
 * themselves and their `hooks`, `config` and `.git` files read-only (git-folders.ts
 * `gitProtection`: also those in a root's folders) and the hooks folders and config files their
 * config names (configured-places.ts: `core.hooksPath`, e.g. husky's `.husky`, and `include.path`;
 * one that leads through a symbolic link in a root has its chain fixed as `.turnloop`'s); the hidden places last, so that a secret inside a workspace stays hidden. Paths are resolved through symbolic links first (a mount
 * follows them anyway); places that do not exist are left out. Reads the file system at each
 * call (an `lstat` per place or a listing of its folder; `paths` remembers what each resolved
 * to), so a `.git` or a hidden place made since the last command is covered too.
 */
export function bubblewrapArguments(
  policy: Exclude<SandboxPolicy, "danger-full-access">,
  settings: SandboxSettings,
  command: string,
  paths: RealPaths = new RealPaths(),
): string[] {
  return bubblewrapInvocation(policy, settings, command, paths).args;
}

/**
 * One run of `bwrap`: its arguments ({@link bubblewrapArguments}), the real path of the folder the
 * command runs in, and the places those arguments hide, so that a write refused there is told as
 * what it is (protected-place-stops.ts `protectedPlaceStop`) from the same list the mounts were made of.
 */
export interface BubblewrapInvocation {
  args: string[];
  /** What `bwrap` reads on file descriptors 3, … (the seccomp filter of `--seccomp 3`). */
  inputs: readonly Uint8Array[];
  cwd: string;
  hidden: readonly HiddenPlace[];
}

/**
 * `--seccomp 3` and the filter it reads there, unless the settings allow Unix sockets
 * (unix-socket-filter.ts). Throws on a processor the filter does not know: availability.ts
 * refuses the sandbox there first, so this is never reached by a checked caller.
 */
function unixSocketFiltering(settings: SandboxSettings): {
  args: string[];
  inputs: Uint8Array[];
} {
  if (settings.allowUnixSockets === true) {
    return { args: [], inputs: [] };
  }
  const filter = unixSocketFilter();
  if (filter === undefined) {
    throw new Error(`the sandbox cannot refuse Unix sockets on ${process.arch}`);
  }
  return { args: ["--seccomp", "3"], inputs: [filter] };
}

/**
 * {@link bubblewrapArguments} with the places they hide and the real cwd; `walked` is what a walk
 * of the writable roots found just before (the runner's, which its guards read too), else they
 * are walked now; `programs`, the files MCP servers run in the roots (configured-places.ts
 * `serverProgramsIn`, kept read-only as `.mcp.json` is), else read now.
 */
export function bubblewrapInvocation(
  policy: Exclude<SandboxPolicy, "danger-full-access">,
  settings: SandboxSettings,
  command: string,
  paths: RealPaths = new RealPaths(),
  walked?: WorkspaceEntries,
  programs?: readonly string[],
): BubblewrapInvocation {
  const realPathOf = (path: string) => paths.resolve(path)?.real;
  const cwd = realPathOf(settings.cwd) ?? resolve(settings.cwd);
  const roots = writableRootsOf(cwd, settings, paths);
  const writableRoots = policy === "workspace-write" ? roots : [];
  // Under read-only the roots are seen as they are; inside `/tmp` they are mounted again.
  const readOnlyRoots = policy === "read-only" ? roots : [];
  const temporary =
    settings.temporaryDirectory === undefined ? undefined : realPathOf(settings.temporaryDirectory);
  const bind = (root: string) => ["--bind", root, root];
  const inTemporary = (root: string) => isInside(root, "/tmp");
  const found = walked ?? new WorkspaceWalk().entriesOf(writableRoots);
  const git = gitProtection(writableRoots, found.git);
  const user = gitUserOf(settings.home, settings.configHome, cwd);
  const configured = configuredPlacesIn(writableRoots, found.git, user, paths);
  const servers = programs ?? serverProgramsIn(writableRoots, cwd, settings.turnloopHome);
  const hidden = hiddenPlaces(settings, roots, paths);
  const filtering = unixSocketFiltering(settings);
  const tmpfsSize = settings.tmpfsSizeMiB ?? DEFAULT_TMPFS_SIZE_MIB;
  const args = [
    ...ISOLATION_OPTIONS,
    ...(settings.network === true ? [] : ["--unshare-net"]),
    ...filtering.args,
    ...["--ro-bind", "/", "/"],
    ...writableRoots.filter((root) => !inTemporary(root)).flatMap(bind),
    ...["--dev", "/dev", "--proc", "/proc"],
    ...cappedTmpfs("/dev/shm", tmpfsSize),
    ...(temporary === undefined ? cappedTmpfs("/tmp", tmpfsSize) : ["--bind", temporary, "/tmp"]),
    ...writableRoots.filter(inTemporary).flatMap(bind),
    ...readOnlyRoots.filter(inTemporary).flatMap((root) => ["--ro-bind", root, root]),
    ...gitFolderBinds(git),
    ...configurationMounts(writableRoots, configured.chains, found.nested, servers),
    ...gitReadOnlyMounts(git, paths),
    ...configured.existing.flatMap(({ path }) => ["--ro-bind", path, path]),
    ...hidden.flatMap(hideMount),
    ...["--setenv", "TMPDIR", "/tmp"],
    ...cacheEnvironment(realPathOf(settings.home) ?? resolve(settings.home), writableRoots),
    ...(settings.network === true ? [] : OFFLINE_ENVIRONMENT),
    ...API_KEY_VARIABLES.flatMap((name) => ["--unsetenv", name]),
    ...["--chdir", cwd, "--", "bash", "-c", command],
  ];
  return { args, inputs: filtering.inputs, cwd, hidden };
}

/** The cwd and the additional directories that exist, as real paths, without repeats. */
function writableRootsOf(cwd: string, settings: SandboxSettings, paths: RealPaths): string[] {
  const roots = [cwd];
  for (const directory of settings.additionalDirectories ?? []) {
    const real = paths.resolve(directory)?.real;
    if (real !== undefined && !roots.includes(real)) {
      roots.push(real);
    }
  }
  return roots;
}

/** A hidden place that exists, as a real path, and whether it is a folder. */
export interface HiddenPlace {
  path: string;
  directory: boolean;
  /** Whether it is `TURNLOOP_HOME` (the session logs) rather than a credential or a socket. */
  turnloopHome: boolean;
}

/**
 * The places to hide: real-paths.ts `hiddenPlacePaths` (the configured list or the default,
 * `TURNLOOP_HOME`, the runtime folder and Docker's socket: the list the file tools keep out of
 * too), existing (a listing of each folder that holds several of them rules out most, the rest
 * are `lstat`ed as they are resolved: place-listings.ts `ruledOutPlaces`), resolved, outside the
 * host's `/tmp` (replaced anyway) unless in a root mounted again over the private `/tmp`
 * (writable, or read-only under `read-only`), and without one that lies inside another (hiding the
 * outer one hides it, and its mount point would not exist).
 */
function hiddenPlaces(
  settings: SandboxSettings,
  roots: readonly string[],
  paths: RealPaths,
): HiddenPlace[] {
  const places: HiddenPlace[] = [];
  const entries = hiddenPlacePaths(settings);
  const ruledOut = ruledOutPlaces(planOf(entries));
  for (const [index, entry] of entries.entries()) {
    if (ruledOut[index] === true) {
      paths.forget(entry);
      continue;
    }
    const resolved = paths.resolve(entry);
    const path = resolved?.real;
    const visible =
      path !== undefined && (!isInside(path, "/tmp") || roots.some((root) => isInside(path, root)));
    if (visible) {
      const turnloopHome = entry === settings.turnloopHome;
      places.push({ path, directory: resolved?.directory === true, turnloopHome });
    }
  }
  return places.filter(
    (place, index) =>
      !places.some((other, otherIndex) =>
        other.path === place.path
          ? otherIndex < index
          : other.directory && isInside(place.path, other.path),
      ),
  );
}

/**
 * The {@link ExistencePlan} of the hidden places `entries` (absolute), made from their text and
 * kept while the next command's list is the same, string by string (a runner's settings keep one
 * list; another list is planned again).
 */
function planOf(entries: readonly string[]): ExistencePlan {
  const kept = lastPlan;
  if (
    kept !== undefined &&
    kept.entries.length === entries.length &&
    kept.entries.every((entry, index) => entry === entries[index])
  ) {
    return kept.plan;
  }
  const plan = existencePlan(entries.map(normalAbsolutePath));
  lastPlan = { entries, plan };
  return plan;
}

/** {@link planOf}'s last plan and the list it was made for. */
let lastPlan: { entries: readonly string[]; plan: ExistencePlan } | undefined;

/**
 * A folder becomes an empty read-only memory file system; anything else becomes `/dev/null` on a
 * `nodev` mount, which cannot be opened (`Permission denied`).
 */
function hideMount(place: HiddenPlace): string[] {
  return place.directory
    ? ["--tmpfs", place.path, "--remount-ro", place.path]
    : ["--ro-bind", "/dev/null", place.path];
}
