import { relative } from "node:path";
import type { CommandRequest, CommandResult, CommandRunner } from "../command-runner.js";
import { type ProcessArgv, ProcessRunner } from "../process-runner.js";
import { failedInMountSetup } from "./availability.js";
import { type BubblewrapInvocation, bubblewrapInvocation } from "./bubblewrap-arguments.js";
import {
  configurationSnapshot,
  leadingEntries,
  undoConfigurationChanges,
} from "./configuration-guard.js";
import { gitUserOf } from "./configured-places.js";
import { gitSnapshot, undoGitChanges } from "./git-guard.js";
import { hiddenPlaceNote } from "./hidden-place-notes.js";
import { EXIT_TRAP_PATH, leftRunningCount, leftRunningScript } from "./left-running.js";
import {
  NO_NETWORK,
  networkExit,
  networkRefusedDespiteSuccess,
  unixSocketRefusal,
} from "./network-refusals.js";
import type { SandboxPolicy, SandboxSettings } from "./policy.js";
import { privateTemporaryNote, type TemporaryUseReader } from "./private-temporary.js";
import {
  type HiddenMention,
  type KeptFile,
  type LeadingEntry,
  protectedPlaceStop,
  withLandingPaths,
} from "./protected-place-stops.js";
import { RealPaths } from "./real-paths.js";
import { READ_ONLY, refusedDespiteSuccess, WRITABLE } from "./refused-writes.js";
import { type ServerConfigView, serverProgramsIn } from "./server-programs.js";
import { type WorkspaceEntries, WorkspaceWalk } from "./workspace-walk.js";

/** A policy that confines (every one but `danger-full-access`). */
export type ConfiningPolicy = Exclude<SandboxPolicy, "danger-full-access">;

/**
 * The {@link CommandRunner} that runs each command in bubblewrap under `policy`: a
 * {@link ProcessRunner} (same process group, timeout, cancellation and output capping) whose argv
 * is `bwrap … -- bash -c command`, confined to the request's cwd (the session's workspace). A
 * failed command whose output shows it hit the sandbox's limits carries
 * {@link CommandResult.sandboxLimit}, as does one that changed what later runs read where the
 * mounts cannot stop it (`.turnloop`, `.mcp.json` in a writable root: made where nothing was, or
 * a symbolic link they lead through replaced; tool configuration made in a root's folder,
 * `pkg/.npmrc`, `a/b/c/.vscode`; a `.git` made where there was none), which is undone
 * when the command ends (configuration-guard.ts, git-guard.ts).
 * A run whose bwrap failed before the command started, on a mount that came or went while it
 * set up, is run again ({@link failedInMountSetup}, at most {@link SETUP_RUNS} runs).
 * What the places it mounts resolve to is remembered for the runner's life ({@link RealPaths}). Check `sandboxAvailability` first: this does not.
 */
export class SandboxedRunner implements CommandRunner {
  readonly description: string;
  readonly stopDescription = "its process group was killed";
  private readonly paths = new RealPaths();
  /** The walk of the writable roots, whose listings last while their folders are unchanged. */
  private readonly walk = new WorkspaceWalk();

  /**
   * @param readers read a command's syntax tree (permissions/, passed down by the host: tools/
   *   does not import it): `statusProgram` tells which program's exit status a command returns
   *   (permissions/status-command.ts), without which a silent client's exit code is no evidence of
   *   the closed network; `temporaryUse` how it uses the private `/tmp`
   *   (permissions/temporary-use.ts), without which no command is told of it.
   */
  constructor(
    private readonly policy: ConfiningPolicy,
    private readonly settings: Omit<SandboxSettings, "cwd">,
    private readonly readers: CommandReaders = {},
  ) {
    this.description = `bubblewrap (${policy}, ${settings.network === true ? "network on" : "no network"})`;
  }

  /**
   * Runs `command` (see {@link CommandRunner.run}); `serverConfigs` is the session's view of the
   * MCP config files whose server programs stay read-only (server-programs.ts
   * `ServerConfigView`, shared with its permission gate): a file that did not change since it
   * was last read is not read again. Absent: each is read now.
   */
  async run(
    command: string,
    request: CommandRequest,
    serverConfigs?: ServerConfigView,
  ): Promise<CommandResult> {
    const roots = [request.cwd, ...(this.settings.additionalDirectories ?? [])];
    const realRoots = roots.flatMap((root) => this.paths.resolve(root)?.real ?? []);
    const guards = this.guardsOf(realRoots, request.cwd, serverConfigs);
    const { ran, spawned } = await this.runWrapped(command, request, guards);
    const result = withLeftRunning(ran, spawned.report);
    const undone = await guards.undo();
    const judged = {
      network: this.settings.network === true,
      unixSockets: this.settings.allowUnixSockets === true,
      command,
      leading: guards.leading,
      configuredPlaces: guards.configuredPlaces,
      hidden:
        result.exitCode && spawned.invocation !== undefined
          ? hiddenMentions(spawned.invocation)
          : [],
      ...(this.readers.statusProgram === undefined
        ? {}
        : { statusProgram: this.readers.statusProgram }),
    };
    // Judged by where the paths it printed land, so a write through a link names the place.
    const landed = { ...result, output: withLandingPaths(result.output, request.cwd, realRoots) };
    const limit = undone ?? sandboxLimitOf(landed, this.policy, judged);
    const notes = [
      this.settings.temporaryDirectory === undefined
        ? privateTemporaryNote(this.readers.temporaryUse?.(command, roots), this.policy)
        : undefined,
      limit === undefined
        ? refusedDespiteSuccess(landed, result.output, this.policy, judged)
        : undefined,
      limit === undefined
        ? networkRefusedDespiteSuccess(result.output, result.exitCode, judged.network)
        : undefined,
      hiddenPlaceNote(spawned.invocation?.hidden ?? [], {
        command,
        output: result.output,
        home: this.settings.home,
        cwd: request.cwd,
      }),
    ].filter((line) => line !== undefined);
    const note = notes.length === 0 ? undefined : notes.join("\n");
    return {
      ...result,
      ...(limit === undefined ? {} : { sandboxLimit: limit }),
      ...(note === undefined ? {} : { note }),
    };
  }

  /**
   * Runs `command` in bwrap with the mounts of `guards`, once more while bwrap fails in its mount
   * setup (availability.ts `failedInMountSetup`, at most {@link SETUP_RUNS} runs): the last run's
   * result and what it wrote on the pipes the runner reads, its mounts (hidden places included)
   * as the wrap made them, which the judgement of its result reads.
   */
  private async runWrapped(
    command: string,
    request: CommandRequest,
    guards: WorkspaceGuards,
  ): Promise<{ ran: CommandResult; spawned: Spawned }> {
    const file = this.settings.bwrapPath ?? "bwrap";
    const spawned: Spawned = { status: "", report: "" };
    const settings = { ...this.settings, cwd: request.cwd };
    const wrap = (line: string) => {
      const { policy, paths } = this;
      spawned.invocation = bubblewrapInvocation(
        policy,
        settings,
        line,
        paths,
        guards.found,
        guards.programs,
      );
      return withReports(spawned, file, request.env.BASH_ENV);
    };
    const runner = new ProcessRunner({ wrap, description: this.description });
    let ran = await runner.run(command, request);
    for (let run = 1; run < SETUP_RUNS && failedInMountSetup(ran, spawned.status); run++) {
      ran = await runner.run(command, request);
    }
    return { ran, spawned };
  }

  /**
   * Under `workspace-write`, notes what the guards watch in `realRoots` before a command
   * (configuration-guard.ts, git-guard.ts; one walk of the roots for both and for the mounts,
   * workspace-walk.ts `WorkspaceWalk`; the files MCP servers run there, server-programs.ts):
   * what the judgement of its result reads of it, and `undo`, which undoes what the command
   * changed of it once it ended (one more walk, of the folders the first entered and those made
   * since). Nothing under `read-only`.
   */
  private guardsOf(
    realRoots: readonly string[],
    cwd: string,
    serverConfigs: ServerConfigView | undefined,
  ): WorkspaceGuards {
    if (this.policy !== "workspace-write") {
      return { leading: [], configuredPlaces: [], programs: [], undo: async () => undefined };
    }
    const before = this.walk.entriesOf(realRoots);
    const realCwd = this.paths.resolve(cwd)?.real ?? cwd;
    const turnloopHome = this.settings.turnloopHome;
    const programs = serverProgramsIn(realRoots, realCwd, turnloopHome, serverConfigs);
    const snapshot = configurationSnapshot(realRoots, before.nested, programs);
    const user = gitUserOf(this.settings.home, this.settings.configHome, cwd);
    const git = gitSnapshot(realRoots, user, this.paths, before.git);
    return {
      found: before,
      programs,
      leading: leadingEntries(snapshot),
      configuredPlaces: [
        ...git.configuredPlaces,
        ...programs.map((path) => ({ path, kind: "server" as const })),
      ],
      undo: async () => {
        const after = this.walk.entriesOf(realRoots, { after: true });
        const configurationUndone = await undoConfigurationChanges(snapshot, after.nested);
        const gitUndone = await undoGitChanges(git, realRoots, after.git);
        return configurationUndone ?? gitUndone;
      },
    };
  }
}

/** One run's bwrap invocation and what it wrote on the pipes the runner reads. */
/** What reads a command's syntax tree for the runner's notes (see the constructor). */
export interface CommandReaders {
  statusProgram?: (command: string) => string | undefined;
  temporaryUse?: TemporaryUseReader;
}

interface Spawned {
  invocation?: BubblewrapInvocation;
  /** bwrap's `--json-status-fd` lines. */
  status: string;
  /** The command's count of processes it left running (left-running.ts). */
  report: string;
}

/**
 * The argv and pipes of `spawned.invocation`: its inputs, then the file its shell reads through
 * `BASH_ENV` (left-running.ts, given the command's own `userBashEnv`), which bwrap writes at
 * `EXIT_TRAP_PATH` after its mounts (`--file`, before `--chdir`, the invocation's last options);
 * the pipes read back are the count of processes left running (the descriptor after the inputs)
 * and bwrap's status (bwrap(1) `--json-status-fd`, the next one), which tells whether the
 * command ran.
 */
function withReports(spawned: Spawned, file: string, userBashEnv: string | undefined): ProcessArgv {
  const { args, inputs } = spawned.invocation ?? { args: [] as string[], inputs: [] };
  const scriptFd = 3 + inputs.length;
  const reportFd = scriptFd + 1;
  const script = leftRunningScript(reportFd, userBashEnv);
  const exitTrap = [
    ...["--file", String(scriptFd), EXIT_TRAP_PATH],
    ...["--setenv", "BASH_ENV", EXIT_TRAP_PATH],
  ];
  const last = args.lastIndexOf("--chdir");
  return {
    file,
    args: [
      ...["--json-status-fd", String(reportFd + 1)],
      ...args.slice(0, last),
      ...exitTrap,
      ...args.slice(last),
    ],
    inputs: [...inputs, new TextEncoder().encode(script)],
    readers: [
      (text) => {
        spawned.report = text;
      },
      (text) => {
        spawned.status = text;
      },
    ],
  };
}

/**
 * `result` with how many processes the command left running, which the sandbox ended with it
 * ({@link CommandResult.sandboxStopped}, from `report`), in place of the runner's
 * `backgroundStopped` and `leftRunning`: the advice (`nohup`) does not hold in the sandbox, and
 * nothing of it runs on.
 */
function withLeftRunning(result: CommandResult, report: string): CommandResult {
  const { backgroundStopped: _outside, leftRunning: _ended, ...rest } = result;
  const count = leftRunningCount(report);
  return count === undefined || count === 0 ? rest : { ...rest, sandboxStopped: count };
}

/** How many times a command runs while bwrap keeps failing in its mount setup (then its error is the result). */
const SETUP_RUNS = 3;

/** What {@link SandboxedRunner} guards of the writable roots for one command. */
interface WorkspaceGuards {
  /** What the walk before the command found, which the mounts read too (none: `read-only`). */
  found?: WorkspaceEntries;
  /** Entries mounted read-only because a protected place leads through them. */
  leading: readonly LeadingEntry[];
  /**
   * Hooks folders and config files a repository's config names (configured-places.ts), and the
   * files MCP servers run (server-programs.ts).
   */
  configuredPlaces: readonly KeptFile[];
  /** The files MCP servers run in the roots (server-programs.ts `serverProgramsIn`). */
  programs: readonly string[];
  /** Undoes what the ended command changed of them: why it is reported stopped, if it is. */
  undo: () => Promise<string | undefined>;
}

/**
 * The places `invocation` hid, each with the paths a tool run in its folder may print for it
 * (absolute, and relative to that folder).
 */
function hiddenMentions(invocation: BubblewrapInvocation): HiddenMention[] {
  return invocation.hidden.map(({ path, turnloopHome }) => {
    const relativePath = relative(invocation.cwd, path);
    const relativeSpellings = relativePath === "" ? [] : [relativePath, `./${relativePath}`];
    return { name: path, spellings: [path, ...relativeSpellings], turnloopHome };
  });
}

/** What {@link sandboxLimitOf} judges a command's result by, besides the result. */
export interface JudgedCommand {
  /** Whether the sandbox let the command make Unix sockets (else a seccomp filter refused them). */
  unixSockets?: boolean;
  /** The places the sandbox hid from the command (a write there no setting allows). */
  hidden?: readonly HiddenMention[];
  /** Whether the sandbox let the command use the network. */
  network: boolean;
  /** The command as given to `bash -c`. */
  command?: string;
  /** Entries mounted read-only because a protected place leads through them. */
  leading?: readonly LeadingEntry[];
  /**
   * Hooks folders and config files a repository's config names (configured-places.ts) and files
   * MCP servers run (server-programs.ts), mounted read-only.
   */
  configuredPlaces?: readonly KeptFile[];
  /**
   * The name of the program whose exit status `bash -c command` returns, when its text tells
   * (permissions/status-command.ts `statusProgram`); without it no exit code is evidence.
   */
  statusProgram?: (command: string) => string | undefined;
}

/**
 * Why a sandboxed command failed on the sandbox's limits, judged from a non-zero exit and what it
 * printed: a write refused on a place kept read-only under every policy (protected-place-stops.ts `protectedPlaceStop`),
 * a write to a read-only place (worded for `policy`), a Unix socket the seccomp filter refused
 * (network-refusals.ts `unixSocketRefusal`), or (with the network off) a failed name
 * lookup or connection, said in its output or, when the program whose status the shell returned
 * is a known network client, by its exit code (network-refusals.ts `NETWORK_EXIT_CODES`). `undefined` when it succeeded, was stopped, or
 * failed for another reason.
 */
export function sandboxLimitOf(
  result: CommandResult,
  policy: ConfiningPolicy,
  judged: JudgedCommand,
): string | undefined {
  const { network, command = "", leading = [], configuredPlaces = [], statusProgram } = judged;
  if (result.exitCode === null || result.exitCode === 0) {
    return undefined;
  }
  const protectedPlace = protectedPlaceStop(
    result.output,
    leading,
    configuredPlaces,
    judged.hidden,
  );
  if (protectedPlace !== undefined) {
    return protectedPlace;
  }
  const readOnly = READ_ONLY.exec(result.output);
  if (readOnly !== null) {
    return `${WRITABLE[policy]} (${readOnly[0]})`;
  }
  const connectionFailed =
    NO_NETWORK.exec(result.output)?.[0] ?? networkExit(command, result.exitCode, statusProgram);
  const socket =
    judged.unixSockets === true
      ? undefined
      : unixSocketRefusal(result.output, command, connectionFailed);
  if (socket !== undefined || network) {
    return socket;
  }
  return connectionFailed === undefined
    ? undefined
    : `the sandbox has no network (${connectionFailed})`;
}
