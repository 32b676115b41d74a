/**
 * An SDK app's choice of sandbox for one session (issue 23; README, "Sandbox"): the `sandbox`
 * field of `session.create` / `session.resume`, turnloop's extension to the Copilot SDK's session
 * config. Absent, the session runs under the server's policy (`--sandbox`, config, or the
 * default of its permission mode).
 */

import type { CommandConfinement, PermissionMode } from "../permissions/permission-mode.js";
import type { HostSandbox } from "../session/sandbox-setup.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import { invalidParams } from "./params.js";

/**
 * Refuses a policy the host cannot honour (a confining one where bubblewrap cannot run: never
 * silently unconfined), as ACP's `session/set_config_option` does.
 * @throws ResponseError -32602 naming `method`, the policy and how to install bubblewrap.
 */
export async function checkSandbox(
  sandbox: HostSandbox,
  method: string,
  policy: SandboxPolicy | undefined,
): Promise<void> {
  if (policy === undefined) {
    return;
  }
  const refused = await sandbox.refusal(policy);
  if (refused !== undefined) {
    throw invalidParams(`${method}: sandbox ${refused}`);
  }
}

/**
 * Where a command of the session runs under permission mode `mode`: its policy (the app's
 * `sandbox`, else the server's, else `workspace-write` in mode `auto`) and whether the network is
 * on, as the session's permission gate sees it; carried on the wire by each
 * `permission.requested` about a command (`permissionRequest.sandbox`).
 */
export function sessionConfinement(
  sandbox: HostSandbox,
  mode: PermissionMode,
  chosen: SandboxPolicy | undefined,
): Promise<CommandConfinement> {
  return sandbox.confinement(sandbox.policyFor(mode, chosen));
}
