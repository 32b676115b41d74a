import type { SandboxPolicy } from "../tools/sandbox/policy.js";

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
