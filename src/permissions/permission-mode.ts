import { isProtectedPlaceStop, type SandboxPolicy } from "../tools/sandbox/policy.js";

/**
 * How much the gate decides alone (issue 23). `ask`: edits and commands are asked about;
 * `auto`: commands run without asking because they run in the sandbox, and edits inside the
 * workspace run without asking (falls back to `ask` where the sandbox cannot run);
 * `full-access`: every tool runs without asking (`--allow-all-tools`). Deny rules apply first in
 * every mode.
 */
export const PERMISSION_MODES = ["ask", "auto", "full-access"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Whether `text` names a {@link PermissionMode}. */
export function isPermissionMode(text: string): text is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(text);
}

/**
 * Where a command runs, as every permission question shows it: inside the sandbox under
 * `policy` (with or without the network), or outside it (`policy: "danger-full-access"`);
 * `outsideReason` is set when the question is to run, outside the sandbox, a command the sandbox
 * stopped (issue 23: the reason is shown with the question).
 */
export interface CommandConfinement {
  policy: SandboxPolicy;
  network: boolean;
  outsideReason?: string;
}

/** Where a command the sandbox stopped runs once allowed outside it, and why it was stopped. */
export function outsideConfinement(outsideReason: string): CommandConfinement {
  return { policy: "danger-full-access", network: true, outsideReason };
}

/** One line for a question, e.g. `sandbox: workspace-write, no network`. */
export function describeConfinement(confinement: CommandConfinement): string {
  if (confinement.outsideReason !== undefined) {
    return `outside the sandbox: ${confinement.outsideReason}`;
  }
  if (confinement.policy === "danger-full-access") {
    return "no sandbox (danger-full-access)";
  }
  return `sandbox: ${confinement.policy}, ${confinement.network ? "network on" : "no network"}`;
}

/**
 * What a question about a command shows of where it runs: {@link describeConfinement} when a
 * policy confines it or the question is to run it outside the sandbox; `undefined` for a command
 * that runs unconfined anyway (no policy chosen), whose questions read as before.
 */
export function shownConfinement(confinement: CommandConfinement | undefined): string | undefined {
  if (
    confinement === undefined ||
    (confinement.policy === "danger-full-access" && confinement.outsideReason === undefined)
  ) {
    return undefined;
  }
  return describeConfinement(confinement);
}

/*
 * Which setting would have let the sandbox allow a command it stopped, for a face to say where
 * nobody could be asked whether to run it again outside the sandbox (README, "Sandbox"). One
 * judgement and one wording for every face; each face names its own settings: `-p` its flags
 * (`--sandbox-network`, `--sandbox workspace-write`, `--add-dir <folder>`), the SDK server the
 * session config's and the server's equivalents.
 */

/**
 * What the sandbox hit: no network, a read-only workspace, a place outside the workspace, or a
 * place it keeps read-only whatever the settings (`.git/hooks`, `.git/config`:
 * tools/sandbox/policy.ts `protectedPlaceStop`), which only running without the sandbox allows.
 */
export type SandboxLimit = "network" | "read-only" | "outside-workspace" | "protected";

/**
 * The limit a stopped command hit. `outsideReason` is the question's (permission-mode.ts
 * `CommandConfinement`), one of tools/sandbox/sandboxed-runner.ts `sandboxLimitOf`'s reasons;
 * `policy` is the sandbox policy in force (a write under `read-only` may be in the workspace).
 */
export function sandboxLimit(
  outsideReason: string,
  policy: SandboxPolicy | undefined,
): SandboxLimit {
  if (isProtectedPlaceStop(outsideReason)) {
    return "protected";
  }
  if (outsideReason.includes("no network")) {
    return "network";
  }
  return policy === "read-only" ? "read-only" : "outside-workspace";
}

/** How a face names the settings that lift each limit, and its extra writable folders. */
export interface LimitSettings {
  network: string;
  "read-only": string;
  "outside-workspace": string;
  /** The setting that runs commands without the sandbox (what a protected place needs). */
  protected: string;
  /** The setting of the folders besides the workspace that `workspace-write` makes writable. */
  folders: string;
}

/**
 * `<setting> (<what it allows>)`, e.g. `--sandbox-network (sandboxed commands may use the
 * network)`: the setting of `names` that lets the sandbox allow what it hit.
 */
export function liftingSetting(limit: SandboxLimit, names: LimitSettings): string {
  switch (limit) {
    case "network":
      return `${names.network} (sandboxed commands may use the network)`;
    case "read-only":
      return `${names["read-only"]} (sandboxed commands may write in the workspace and ${names.folders} folders)`;
    case "outside-workspace":
      return `${names["outside-workspace"]} (sandboxed commands may write there too)`;
    case "protected":
      return `${names.protected} (commands run without the sandbox, the only way to write that place)`;
  }
}
