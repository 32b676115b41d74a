import { basename } from "node:path";

/**
 * Sandbox policies and the settings a sandboxed command needs (issue 23). The policy names are
 * Codex's (`--sandbox read-only | workspace-write | danger-full-access`), so its users know them.
 */

/** The sandbox policies, from the most confined to none. */
export const SANDBOX_POLICIES = ["read-only", "workspace-write", "danger-full-access"] as const;

/**
 * - `read-only`: the whole file system is read-only; only a private `/tmp` is writable.
 * - `workspace-write`: as `read-only`, plus the session's cwd and its additional directories are
 *   writable, except the `hooks` and `config` of the git repositories in them and each one's
 *   {@link PROJECT_CONFIGURATION} and {@link STARTUP_FILES}.
 * - `danger-full-access`: no sandbox; the command runs as the user with everything the user has.
 */
export type SandboxPolicy = (typeof SANDBOX_POLICIES)[number];

/** Whether `text` names a {@link SandboxPolicy}, e.g. for a flag or a config value. */
export function isSandboxPolicy(text: string): text is SandboxPolicy {
  return (SANDBOX_POLICIES as readonly string[]).includes(text);
}

/**
 * What a project folder holds that configures later runs, besides git's `hooks` and `config`:
 * turnloop's project config folder (permission mode, allow rules, base URL) and the MCP servers
 * file (servers start outside the sandbox). One list for both guards: permission mode `auto` asks
 * about an edit to any of them (permissions/permission-decision.ts `isConfigurationOfLaterRuns`),
 * and the sandbox keeps each writable root's read-only for commands, what one leads through and
 * one that does not exist yet included (configuration-chain.ts, configuration-guard.ts).
 */
export const PROJECT_CONFIGURATION: readonly string[] = [".turnloop", ".mcp.json"];

/**
 * What a shell or git reads from a home folder and runs later, outside the sandbox: bash's and
 * zsh's startup files (bash(1) "INVOCATION", zsh(1) "STARTUP/SHUTDOWN FILES"; `.profile` is sh's
 * and dash's too), git's user config (`.gitconfig`, `.config/git/`: `core.fsmonitor`,
 * `core.pager` and aliases run programs) and `.local/bin`, early in a usual `PATH` (a `git` there
 * runs instead of git). Each writable root's are kept read-only as its
 * {@link PROJECT_CONFIGURATION} is (configuration-chain.ts), since the workspace may be the home
 * folder (`cd ~ && turnloop`; a trial planted all of these there); `@anthropic-ai/sandbox-runtime`
 * keeps the same files from writes (its `DANGEROUS_FILES`). Paths relative to the root.
 */
export const STARTUP_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshenv",
  ".zshrc",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".gitconfig",
  ".config/git",
  ".local/bin",
];

/**
 * Everything that configures later runs, besides git's own folder: {@link PROJECT_CONFIGURATION},
 * then {@link STARTUP_FILES}, paths relative to a folder. The one list both guards read: the
 * sandbox keeps each writable root's read-only (configuration-chain.ts, configuration-guard.ts),
 * and permission mode `auto` asks about an edit of any of them, wherever it lies
 * (permissions/permission-decision.ts `isConfigurationOfLaterRuns`).
 */
export const LATER_RUN_CONFIGURATION: readonly string[] = [
  ...PROJECT_CONFIGURATION,
  ...STARTUP_FILES,
];

/**
 * The user's credential places hidden from sandboxed commands by default, relative to the home
 * folder: issue 23's list (ssh, the clouds' CLIs, Docker, Kubernetes, `.netrc`, npm's and PyPI's
 * tokens, git's credential store, GnuPG), then what a trial read from a sandbox (session 27:
 * GitHub's CLI `hosts.yml`, Cargo's registry token) and other tools' tokens: Claude Code's and
 * Codex's logins, PostgreSQL's `.pgpass`, Maven's and Gradle's repository passwords, Vault's
 * token, Terraform's registry tokens, git's XDG credential store; shell and REPL histories
 * (passwords typed on a command line, `export TOKEN=…`); and the default `~/.turnloop`, which
 * holds earlier sessions' logs also when `TURNLOOP_HOME` points elsewhere. `TURNLOOP_HOME` (the
 * session logs) and the user's runtime folder are added by {@link SandboxSettings}, not listed
 * here. README's "Sandbox" lists the same.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  ".ssh",
  ".aws",
  ".config/gcloud",
  ".azure",
  ".docker",
  ".kube",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".gnupg",
  ".config/gh",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".claude",
  ".claude.json",
  ".codex",
  ".pgpass",
  ".m2/settings.xml",
  ".m2/settings-security.xml",
  ".gradle/gradle.properties",
  ".vault-token",
  ".terraform.d",
  ".config/git/credentials",
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".local/share/fish/fish_history",
  ".turnloop",
];

/**
 * Host sockets that give a process more than the sandbox allows (a read-only mount does not stop
 * `connect` on a unix socket): Docker's, which is as good as root. Hidden by default.
 */
export const DEFAULT_HIDDEN_SOCKETS: readonly string[] = [
  "/run/docker.sock",
  "/var/run/docker.sock",
];

/**
 * The size cap of the sandbox's private `/tmp` and `/dev/shm`, in MiB, each: without one a tmpfs
 * may grow to half the machine's memory (tmpfs(5), `size`), taken from RAM. bwrap(1) `--size`
 * before `--tmpfs` sets it (bubblewrap ≥ 0.7.0; availability.ts asks for ≥ 0.8.0).
 */
export const DEFAULT_TMPFS_SIZE_MIB = 1024;

/** What a sandboxed command is confined to; every path is absolute unless said otherwise. */
export interface SandboxSettings {
  /** The session's working folder: the command starts there; writable under `workspace-write`. */
  cwd: string;
  /** The session's additional directories; writable under `workspace-write`. Missing ones are skipped. */
  additionalDirectories?: readonly string[];
  /**
   * The user's home folder, against which relative entries of {@link hidden} are resolved; git's
   * `~/.gitconfig` is there (configured-places.ts).
   */
  home: string;
  /**
   * The user's `XDG_CONFIG_HOME`, when set: git reads the user's config from
   * `$XDG_CONFIG_HOME/git/config` instead of `~/.config/git/config` (git-config(1), "FILES"), and
   * the sandbox reads it there for the hooks folder and included files it names
   * (configured-places.ts). A relative one is taken from the command's cwd, as git takes it.
   */
  configHome?: string;
  /** turnloop's own folder (`TURNLOOP_HOME`, the session logs): always hidden. */
  turnloopHome: string;
  /** Whether the command may use the network (default `false`: its own network namespace, empty). */
  network?: boolean;
  /**
   * Places whose content the command must not see: an entry starting with `/` is absolute, any
   * other is relative to {@link home} (a leading `~/` is allowed). Default
   * {@link DEFAULT_HIDDEN_PATHS}; the given list replaces it. Folders appear empty; files cannot be read
   * (`Permission denied`).
   */
  hidden?: readonly string[];
  /**
   * The user's runtime folder (`XDG_RUNTIME_DIR`, e.g. `/run/user/1000`: ssh-agent, gpg-agent,
   * D-Bus sockets), hidden when given.
   */
  runtimeDirectory?: string;
  /**
   * A host folder mounted writable at `/tmp`, so files there last from one command to the next
   * (e.g. one per session); without it `/tmp` is an empty memory file system per command.
   */
  temporaryDirectory?: string;
  /** The bubblewrap program (default `bwrap`, looked up in the command's `PATH`). */
  bwrapPath?: string;
  /**
   * Whether the command may make Unix sockets (config `sandbox.allowUnixSockets`); default
   * `false`: a seccomp filter refuses them (unix-socket-filter.ts).
   */
  allowUnixSockets?: boolean;
  /**
   * The size cap of each memory file system the sandbox makes for the command, its private `/tmp`
   * and `/dev/shm` (config `sandbox.tmpfsSizeMiB`), in MiB; default {@link DEFAULT_TMPFS_SIZE_MIB}.
   */
  tmpfsSizeMiB?: number;
}

/** A program and its arguments, as a runner spawns them (no shell in between). */
export interface CommandLine {
  file: string;
  args: string[];
  /** Data for file descriptors 3, 4, … (process-runner.ts `ProcessArgv.inputs`). */
  inputs?: readonly Uint8Array[];
}

/*
 * The places inside a writable root that the sandbox keeps read-only under every policy
 * (bubblewrap-arguments.ts mounts them read-only over themselves), and how a command that tried
 * to write one is told so. No `--add-dir` or policy makes them writable inside the sandbox: the
 * way out is to run the command outside it (the permission question, or a face's setting for no
 * sandbox), which permissions/permission-mode.ts words per face.
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
 * Why turnloop's own project files ({@link PROJECT_CONFIGURATION}) are kept from sandboxed
 * commands, with `what` read: `it`, `them`, a place's name.
 */
function configuresTurnloop(what: string): string {
  return `turnloop reads ${what} to configure later runs (permissions, base URL, MCP servers it starts)`;
}

/** Why {@link STARTUP_FILES} are kept from sandboxed commands, with `what` read: `it`, `them`, a name. */
function runsLater(what: string): string {
  return `your shell or git reads ${what} and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a program early in PATH)`;
}

/** Why `place` (of {@link PROJECT_CONFIGURATION} or {@link STARTUP_FILES}) is kept, naming it `what`. */
function whyKeptOne(place: string, what: string): string {
  return PROJECT_CONFIGURATION.includes(place) ? configuresTurnloop(what) : runsLater(what);
}

/** Why the places named `places` (of {@link PROJECT_CONFIGURATION} and {@link STARTUP_FILES}) are kept. */
function whyKept(places: readonly string[]): string {
  const turnloop = places.filter((place) => PROJECT_CONFIGURATION.includes(place));
  const startup = places.filter((place) => !PROJECT_CONFIGURATION.includes(place));
  const pronoun = (names: readonly string[]) =>
    places.length === names.length ? (names.length === 1 ? "it" : "them") : names.join(" and ");
  return [
    ...(turnloop.length === 0 ? [] : [configuresTurnloop(pronoun(turnloop))]),
    ...(startup.length === 0 ? [] : [runsLater(pronoun(startup))]),
  ].join("; ");
}

/**
 * `.git/hooks` and `.git/config` of a root's repository (and of those in its folders and
 * theirs, `sub/.git`, `org/repo/.git`: git-folders.ts `GIT_SEARCH_DEPTH`), of its submodules' git
 * folders (`.git/modules/<name>/…`), the files through which git finds them (git-folders.ts
 * `LOCATING_FILES`), and the `.git` folder or file
 * itself (bound over itself: it cannot be moved), as git-folders.ts `gitProtection` mounts them,
 * and each root's {@link PROJECT_CONFIGURATION}.
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
    why: whyKeptOne(name, "it"),
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

/** How every reason of {@link protectedPlaceStop} starts, so a face can tell it from the others. */
const PROTECTED_REASON_START = "the sandbox keeps ";

/**
 * An entry of a writable root (its name, e.g. `cfg`) that one of {@link PROJECT_CONFIGURATION}
 * (`place`) leads through, mounted read-only for a command (configuration-chain.ts).
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
  configured: readonly { path: string; kind: "hooks" | "include" }[] = [],
  hidden: readonly HiddenMention[] = [],
): string | undefined {
  const places = [
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
      why:
        kind === "hooks"
          ? "a repository's core.hooksPath names it, and git runs the hooks there later, outside the sandbox"
          : "a repository's config includes it (include.path), and git reads it as config later, outside the sandbox (core.fsmonitor, aliases run programs)",
    })),
    ...PROTECTED_PLACES,
    ...leading.map(({ entry, place }) => ({
      name: entry,
      path: new RegExp(`(?:^|[\\s'"\`/])${escaped(entry)}(?![\\w.-])`),
      why: `${place} leads through it, and ${whyKeptOne(place, place)}`,
    })),
  ];
  for (const line of output.split("\n")) {
    const refused = REFUSED_WRITE.exec(line);
    const place = refused === null ? undefined : places.find((p) => p.path.test(line));
    if (refused !== null && place !== undefined) {
      return `${PROTECTED_REASON_START}${place.name} read-only whatever the settings: ${place.why} (${refused[0]})`;
    }
  }
  return undefined;
}

function escaped(name: string): string {
  return name.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Why a command that changed one of {@link PROJECT_CONFIGURATION} where the mounts cannot stop it
 * (made one, or what one leads to, where nothing was; replaced a symbolic link it leads through:
 * configuration-guard.ts) is
 * reported stopped: `places` are the names, `undone` what the sandbox undid, already done.
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

/** Whether a reason of the sandbox's (any function above) is a protected place's. */
export function isProtectedPlaceStop(reason: string): boolean {
  return reason.startsWith(PROTECTED_REASON_START);
}
