import type { DEFAULT_HIDDEN_PATHS, DEFAULT_TMPFS_SIZE_MIB } from "./policy.js";

/*
 * The settings of a sandboxed command, types alone (no module is loaded for them): policy.ts
 * re-exports them beside the lists they refer to ({@link DEFAULT_HIDDEN_PATHS},
 * {@link DEFAULT_TMPFS_SIZE_MIB}).
 */

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
