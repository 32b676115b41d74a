/**
 * Sandbox policies and the settings a sandboxed command needs (issue 23). The policy names are
 * Codex's (`--sandbox read-only | workspace-write | danger-full-access`), so its users know them.
 */

/** The sandbox policies, from the most confined to none. */
export const SANDBOX_POLICIES = ["read-only", "workspace-write", "danger-full-access"] as const;

/**
 * - `read-only`: the whole file system is read-only; only a private `/tmp` is writable.
 * - `workspace-write`: as `read-only`, plus the session's cwd and its additional directories are
 *   writable, except each one's `.git/hooks`, `.git/config` and {@link PROJECT_CONFIGURATION}.
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
 * and the sandbox keeps each writable root's read-only for commands, one that does not exist yet
 * included (bubblewrap-arguments.ts, sandboxed-runner.ts).
 */
export const PROJECT_CONFIGURATION: readonly string[] = [".turnloop", ".mcp.json"];

/**
 * The user's credential places hidden from sandboxed commands by default, relative to the home
 * folder (issue 23's list). `TURNLOOP_HOME` (the session logs) and the user's runtime folder are
 * added by {@link SandboxSettings}, not listed here.
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
];

/**
 * Host sockets that give a process more than the sandbox allows (a read-only mount does not stop
 * `connect` on a unix socket): Docker's, which is as good as root. Hidden by default.
 */
export const DEFAULT_HIDDEN_SOCKETS: readonly string[] = [
  "/run/docker.sock",
  "/var/run/docker.sock",
];

/** What a sandboxed command is confined to; every path is absolute unless said otherwise. */
export interface SandboxSettings {
  /** The session's working folder: the command starts there; writable under `workspace-write`. */
  cwd: string;
  /** The session's additional directories; writable under `workspace-write`. Missing ones are skipped. */
  additionalDirectories?: readonly string[];
  /** The user's home folder, against which relative entries of {@link hidden} are resolved. */
  home: string;
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
}

/** A program and its arguments, as a runner spawns them (no shell in between). */
export interface CommandLine {
  file: string;
  args: string[];
}
