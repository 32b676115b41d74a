import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { CommandConfinement, PermissionMode } from "../permissions/permission-mode.js";
import type { CommandRequest, CommandResult, CommandRunner } from "../tools/command-runner.js";
import type { GitUser } from "../tools/sandbox/configured-places.js";
import type {
  ConfiningPolicy,
  SandboxAvailability,
  SandboxedRunner,
  SandboxPolicy,
} from "../tools/sandbox/index.js";
import { DEFAULT_HIDDEN_PATHS } from "../tools/sandbox/policy.js";
import { type HiddenPlaceSettings, hiddenPlacePaths } from "../tools/sandbox/real-paths.js";
import type { ServerConfigView } from "../tools/sandbox/server-programs.js";
import type { SessionMode } from "./commands.js";
import { type RunConfig, type Sourced, sandboxWanted } from "./run-config.js";

/**
 * How a session's commands are confined (issue 23; README, "Sandbox"): the policy a session runs
 * with, whether bubblewrap works here (probed once, only when a policy confines), and the runner.
 *
 * The policy: the session's own choice (ACP config option, SDK session config), else the run
 * config's (`--sandbox`, config `sandbox.policy`), else `workspace-write` in permission mode
 * `auto` (its commands run without asking because they are confined) and `danger-full-access`
 * otherwise (today's behaviour: the user approves each command, or allowed them all).
 */
export class HostSandbox {
  private probe: Promise<SandboxAvailability> | undefined;
  /** The probe's answer once it came ({@link unavailableReason}). */
  private known: SandboxAvailability | undefined;
  /** Sandboxed runners by policy and session folders ({@link sandboxedRunner}). */
  private readonly runners = new Map<string, SandboxedRunner>();
  /** {@link hiddenPlaces}, made at its first call. */
  private hiddenPlaceList: readonly string[] | undefined;

  /**
   * @param config the run config (`sandboxPolicy`, `sandboxNetwork`, `sandboxUnixSockets`,
   *   `sandboxHidden`, `folders`).
   * @param env the commands' environment: its `PATH` finds `bwrap`, its `HOME` and
   *   `XDG_RUNTIME_DIR` name the places hidden, and its `HOME` and `XDG_CONFIG_HOME` where git
   *   finds the user's config (whose hooks folder and included files stay read-only).
   * @param turnloopHome `TURNLOOP_HOME`, always hidden.
   * @param unconfined the runner of commands outside the sandbox.
   */
  constructor(
    private readonly config: RunConfig,
    private readonly env: Readonly<Record<string, string>>,
    private readonly turnloopHome: string,
    readonly unconfined: CommandRunner,
  ) {}

  /** The policy of a session in `mode` that chose `chosen` (or nothing). */
  policyFor(mode: PermissionMode, chosen?: SandboxPolicy): SandboxPolicy {
    return chosen ?? sandboxPolicyOf(this.config, mode).value;
  }

  /**
   * The places the sandbox hides from commands, absolute, links not resolved
   * (tools/sandbox/real-paths.ts `hiddenPlacePaths`): the file tools keep out of them too, under
   * every policy (permissions/hidden-places.ts).
   */
  hiddenPlaces(): readonly string[] {
    // One array per run (its settings stay as they are): the file tools' check plans its reads
    // once per array (permissions/hidden-places.ts `planOf`).
    this.hiddenPlaceList ??= Object.freeze(hiddenPlacePaths(this.hiddenSettings()));
    return this.hiddenPlaceList;
  }

  /**
   * Where git finds the user's own config for commands started in `cwd`, as the sandbox reads it
   * (tools/sandbox/configured-places.ts `gitUserOf`): the commands' `HOME` (the user's home
   * folder when they have none) and `XDG_CONFIG_HOME`, a relative one taken from `cwd`.
   */
  gitUser(cwd: string): GitUser {
    const configHome = this.env.XDG_CONFIG_HOME;
    const home = this.env.HOME ?? homedir();
    return configHome === undefined || configHome === ""
      ? { home }
      : { home, configHome: resolve(cwd, configHome) };
  }

  /**
   * What names the hidden places, for the file tools ({@link hiddenPlaces}) and the sandbox's
   * runners alike: the default list and `sandbox.hidden`, read against `HOME` (the user's home
   * folder when the commands' environment has none), `TURNLOOP_HOME` and `XDG_RUNTIME_DIR`.
   */
  private hiddenSettings(): HiddenPlaceSettings {
    return {
      home: this.env.HOME ?? homedir(),
      turnloopHome: this.turnloopHome,
      hidden: [...DEFAULT_HIDDEN_PATHS, ...this.config.sandboxHidden.map((path) => path.value)],
      ...(this.env.XDG_RUNTIME_DIR === undefined
        ? {}
        : { runtimeDirectory: this.env.XDG_RUNTIME_DIR }),
    };
  }

  /**
   * Whether bubblewrap works here; probed at the first call (the sandbox's modules load then,
   * not at start-up), never rejects.
   */
  availability(): Promise<SandboxAvailability> {
    const allowUnixSockets = this.config.sandboxUnixSockets.value;
    this.probe ??= import("../tools/sandbox/availability.js")
      .then(({ sandboxAvailability }) => sandboxAvailability({ env: this.env, allowUnixSockets }))
      .then((availability) => {
        this.known = availability;
        return availability;
      });
    return this.probe;
  }

  /**
   * Why no sandbox can run here (`<reason> <what to install>.`) once {@link availability} has
   * answered so; `undefined` while it has not answered, or when bubblewrap works.
   */
  unavailableReason(): string | undefined {
    const known = this.known;
    return known === undefined || known.available ? undefined : `${known.reason} ${known.install}.`;
  }

  /**
   * Why a session cannot choose `policy` here (a confining one where bubblewrap cannot run: never
   * silently unconfined), or `undefined` when it can.
   */
  async refusal(policy: SandboxPolicy): Promise<string | undefined> {
    const availability = await this.availability();
    if (policy === "danger-full-access" || availability.available) {
      return undefined;
    }
    return `${policy} cannot be honoured: ${availability.reason} ${availability.install}.`;
  }

  /** Where a command of a session under `policy` runs, once the probe has answered. */
  async confinement(policy: SandboxPolicy): Promise<CommandConfinement> {
    const network = this.config.sandboxNetwork.value;
    if (policy === "danger-full-access" || !(await this.availability()).available) {
      return { policy: "danger-full-access", network: true };
    }
    return { policy, network };
  }

  /**
   * The runner of a session's commands under `policy`: bubblewrap, or for `danger-full-access`
   * {@link unconfined}. Where bubblewrap does not work, commands run unconfined: only reachable
   * when `auto` fell back to asking (an explicit policy is refused before, see
   * {@link sandboxProblem}).
   * @param folders the session's own folders (ACP `additionalDirectories`), confined as the run
   *   config's `--add-dir` folders are: writable under `workspace-write`, and mounted again over
   *   the private `/tmp` when they lie under it.
   * @param serverConfigs the session's view of the MCP config files (tools/sandbox/
   *   server-programs.ts `ServerConfigView`), the one its permission gate reads too: a command
   *   reads a config file again only when it changed; absent: each command reads them all.
   */
  runner(
    policy: SandboxPolicy,
    folders: readonly string[] = [],
    serverConfigs?: ServerConfigView,
  ): CommandRunner {
    if (policy === "danger-full-access") {
      return this.unconfined;
    }
    return {
      description: `${policy} sandbox`,
      stopDescription: this.unconfined.stopDescription,
      run: async (command: string, request: CommandRequest): Promise<CommandResult> => {
        if (!(await this.availability()).available) {
          return this.unconfined.run(command, request);
        }
        const runner = await this.sandboxedRunner(policy, folders);
        return runner.run(command, request, serverConfigs);
      },
    };
  }

  /** One runner per policy and set of session folders (most sessions have none of their own). */
  private async sandboxedRunner(
    policy: ConfiningPolicy,
    folders: readonly string[],
  ): Promise<SandboxedRunner> {
    const { SandboxedRunner } = await import("../tools/sandbox/index.js");
    const { statusProgram } = await import("../permissions/status-command.js");
    const { temporaryUse } = await import("../permissions/temporary-use.js");
    const key = JSON.stringify([policy, folders]);
    let runner = this.runners.get(key);
    if (runner === undefined) {
      const settings = {
        ...this.hiddenSettings(),
        network: this.config.sandboxNetwork.value,
        allowUnixSockets: this.config.sandboxUnixSockets.value,
        ...(this.config.sandboxTmpfsSizeMiB === undefined
          ? {}
          : { tmpfsSizeMiB: this.config.sandboxTmpfsSizeMiB.value }),
        additionalDirectories: [...this.config.folders.map((folder) => folder.value), ...folders],
        ...(this.env.XDG_CONFIG_HOME === undefined ? {} : { configHome: this.env.XDG_CONFIG_HOME }),
      };
      runner = new SandboxedRunner(policy, settings, { statusProgram, temporaryUse });
      this.runners.set(key, runner);
    }
    return runner;
  }
}

/**
 * The permission mode of a face's session mode (interactive `/mode`, ACP `session/set_mode`):
 * `ask` asks; `auto` and `autopilot` are permission mode `auto` (commands in the sandbox, without
 * asking), or `full-access` when the run config gives it (`--allow-all-tools`).
 */
export function permissionModeOf(
  mode: SessionMode,
  config: Pick<RunConfig, "permissionMode">,
): PermissionMode {
  if (mode === "ask") {
    return "ask";
  }
  return config.permissionMode.value === "full-access" ? "full-access" : "auto";
}

/**
 * What the session modes `auto` and `autopilot` let run without asking, in words for `/mode` and
 * ACP's mode lists: under permission mode `auto`, commands and edits inside the workspace; under
 * `full-access` (`--allow-all-tools`), every tool; and whether commands are confined (`policy`).
 */
function autoModeDescription(
  permission: Exclude<PermissionMode, "ask">,
  policy: SandboxPolicy,
  sandboxAvailable: boolean,
): string {
  if (permission === "auto" && policy !== "danger-full-access" && !sandboxAvailable) {
    return "commands and edits ask first, since no sandbox can run here";
  }
  const commands =
    policy === "danger-full-access" ? "commands run unconfined" : "commands run in the sandbox";
  return permission === "full-access"
    ? `every tool runs without asking; ${commands}`
    : `${commands} and edits inside the workspace without asking`;
}

/**
 * {@link autoModeDescription} for a run config and the policy a session chose (if any): what
 * `auto` lets run without asking there; `sandboxAvailable` false where bubblewrap cannot run
 * (then `auto` asks: README, "Sandbox").
 */
export function describeAutoMode(
  config: Pick<RunConfig, "permissionMode" | "sandboxPolicy">,
  chosen?: SandboxPolicy,
  sandboxAvailable = true,
): string {
  const permission = permissionModeOf("auto", config);
  const policy = chosen ?? sandboxPolicyOf(config, permission).value;
  const mode = permission === "full-access" ? "full-access" : "auto";
  return autoModeDescription(mode, policy, sandboxAvailable);
}

/** The session mode a face starts in: `autopilot` with `--autopilot`, `auto` when the permission mode is not `ask`. */
export function defaultSessionMode(
  config: Pick<RunConfig, "autopilot" | "permissionMode">,
): SessionMode {
  if (config.autopilot.value) {
    return "autopilot";
  }
  return config.permissionMode.value === "ask" ? "ask" : "auto";
}

/**
 * The run config's sandbox policy for a session in `mode`, with its source: the chosen one, else
 * `workspace-write` in mode `auto`, else `danger-full-access` (see {@link HostSandbox}).
 */
export function sandboxPolicyOf(
  config: Pick<RunConfig, "sandboxPolicy">,
  mode: PermissionMode,
): Sourced<SandboxPolicy> {
  if (config.sandboxPolicy !== undefined) {
    return config.sandboxPolicy;
  }
  return mode === "auto"
    ? { value: "workspace-write", source: "default in permission mode auto" }
    : { value: "danger-full-access", source: "default" };
}

/**
 * What to tell the user before anything runs: an error when a confining policy was asked for
 * explicitly (`--sandbox`, config) and bubblewrap does not work here (never silently unconfined;
 * the faces exit 64), a warning (said once) when permission mode `auto` falls back to asking for
 * the same reason or when the workspace is the home folder ({@link homeWorkspaceWarning}), else
 * nothing. Probes bubblewrap only when a policy or `auto` needs it.
 */
export async function sandboxProblem(
  config: RunConfig,
  env: NodeJS.ProcessEnv,
): Promise<{ error: string } | { warning: string } | undefined> {
  if (!sandboxWanted(config)) {
    return undefined;
  }
  const chosen = config.sandboxPolicy;
  const { sandboxAvailability } = await import("../tools/sandbox/availability.js");
  const availability = await sandboxAvailability({
    env: { PATH: env.PATH ?? "" },
    allowUnixSockets: config.sandboxUnixSockets.value,
  });
  if (availability.available) {
    const warning = homeWorkspaceWarning(config, env.HOME);
    return warning === undefined ? undefined : { warning };
  }
  const said = `${availability.reason} ${availability.install}.`;
  if (chosen !== undefined && chosen.value !== "danger-full-access") {
    return { error: `${chosen.source} ${chosen.value} cannot be honoured: ${said}` };
  }
  return {
    warning: `permission mode auto asks about commands and edits, since no sandbox can run: ${said}`,
  };
}

/**
 * The warning when commands run under `workspace-write` and a writable folder (the cwd, an
 * `--add-dir` folder) is the home folder `home` (`cd ~ && turnloop`): commands may change every
 * file there but those the sandbox keeps (tools/sandbox/policy.ts `STARTUP_FILES`, git's), so
 * the user hears it once; `undefined` otherwise.
 */
function homeWorkspaceWarning(config: RunConfig, home: string | undefined): string | undefined {
  const policy = sandboxPolicyOf(config, config.permissionMode.value).value;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const folders = [config.cwd.value, ...config.folders.map((folder) => folder.value)];
  if (policy !== "workspace-write" || home === undefined || home === "") {
    return undefined;
  }
  const homeFolder = real(home);
  return folders.some((folder) => real(folder) === homeFolder)
    ? `your home folder ${homeFolder} is a writable folder of the sandbox: commands may change any file in it but your shell's start-up files, git's config, ~/.local/bin and the hooks and config of the repositories in it, which it keeps read-only (README, "Sandbox"); start turnloop in a project's folder to confine them to it`
    : undefined;
}
