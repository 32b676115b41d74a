/**
 * Which setting would have let the sandbox allow a command it stopped, for a face to say where
 * nobody could be asked whether to run it again outside the sandbox (README, "Sandbox"). One
 * judgement and one wording for every face; each face names its own settings: `-p` its flags
 * (`--sandbox-network`, `--sandbox workspace-write`, `--add-dir <folder>`), the SDK server the
 * session config's and the server's equivalents.
 */

import type { SandboxPolicy } from "../tools/sandbox/policy.js";

/** What the sandbox hit: no network, a read-only workspace, or a place outside the workspace. */
export type SandboxLimit = "network" | "read-only" | "outside-workspace";

/**
 * The limit a stopped command hit. `outsideReason` is the question's (permission-mode.ts
 * `CommandConfinement`), one of tools/sandbox/sandboxed-runner.ts `sandboxLimitOf`'s reasons;
 * `policy` is the sandbox policy in force (a write under `read-only` may be in the workspace).
 */
export function sandboxLimit(
  outsideReason: string,
  policy: SandboxPolicy | undefined,
): SandboxLimit {
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
  }
}
