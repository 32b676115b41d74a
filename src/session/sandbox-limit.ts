/**
 * Which setting would have let the sandbox allow a command it stopped, for a face to say where
 * nobody could be asked whether to run it again outside the sandbox (README, "Sandbox"). One
 * judgement and one wording for every face; each face names its own settings: `-p` its flags
 * (`--sandbox-network`, `--sandbox workspace-write`, `--add-dir <folder>`), the SDK server the
 * session config's and the server's equivalents.
 */

import { isProtectedPlaceStop, type SandboxPolicy } from "../tools/sandbox/policy.js";

/**
 * What the sandbox hit: no network, a refused Unix socket (tools/sandbox/unix-socket-filter.ts),
 * a read-only workspace, a place outside the workspace, or a place it keeps read-only whatever
 * the settings (`.git/hooks`, `.git/config`: tools/sandbox/protected-place-stops.ts `protectedPlaceStop`), which
 * only running without the sandbox allows.
 */
export type SandboxLimit =
  | "network"
  | "unix-socket"
  | "read-only"
  | "outside-workspace"
  | "protected";

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
  if (outsideReason.includes("refuses Unix sockets")) {
    return "unix-socket";
  }
  return policy === "read-only" ? "read-only" : "outside-workspace";
}

/** How a face names the settings that lift each limit, and its extra writable folders. */
export interface LimitSettings {
  network: string;
  "unix-socket": string;
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
    case "unix-socket":
      return `${names["unix-socket"]} (sandboxed commands may connect to Unix sockets)`;
    case "read-only":
      return `${names["read-only"]} (sandboxed commands may write in the workspace and ${names.folders} folders)`;
    case "outside-workspace":
      return `${names["outside-workspace"]} (sandboxed commands may write there too)`;
    case "protected":
      return `${names.protected} (commands run without the sandbox, the only way to write that place)`;
  }
}
