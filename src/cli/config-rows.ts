/**
 * The rows of `turnloop config`'s text form: a setting's name, its value and where it came from,
 * the values in one column; and the sandbox's rows.
 */

import type { RunConfig } from "../session/run-config.js";
import { DEFAULT_TMPFS_SIZE_MIB } from "../tools/sandbox/policy.js";

/** Ends a row's name (a control character no setting's name holds), until {@link alignedRows}. */
const NAME_END = "\u001f";

export function row(name: string, value: string | undefined, source: string | undefined): string {
  return `${name}${NAME_END}${value ?? "(not set)"}${source === undefined ? "" : `    from ${source}`}`;
}

/** The rows with their values in one column: after the longest name, at least 24 wide. */
export function alignedRows(lines: readonly string[]): string[] {
  const width = Math.max(24, ...lines.map((line) => line.indexOf(NAME_END)));
  return lines.map((line) => {
    const end = line.indexOf(NAME_END);
    return end < 0 ? line : `${line.slice(0, end).padEnd(width)} ${line.slice(end + 1)}`;
  });
}

/**
 * The sandbox's rows (policy, network, Unix sockets, the size of its /tmp, extra hidden places)
 * and whether bubblewrap works here, with the reason and how to install it when it does not
 * (README, "Sandbox"). The network, Unix socket and /tmp size settings `apply` only under a
 * policy that confines (the last two's rows are left out).
 */
export async function sandboxRows(settings: RunConfig, env: NodeJS.ProcessEnv) {
  const { sandboxPolicyOf } = await import("../session/sandbox-setup.js");
  const { describeSandboxAvailability, sandboxAvailability } = await import(
    "../tools/sandbox/index.js"
  );
  const policy = sandboxPolicyOf(settings, settings.permissionMode.value);
  const availability = await sandboxAvailability({
    env: { PATH: env.PATH ?? "" },
    allowUnixSockets: settings.sandboxUnixSockets.value,
  });
  // With no sandbox, commands have the network as everything else: on/off would read as confined.
  const applies = policy.value !== "danger-full-access";
  const network = { ...settings.sandboxNetwork, applies };
  const networkShown = applies
    ? network.value
      ? "on"
      : "off"
    : "not applicable (no sandbox under danger-full-access: commands have the network)";
  const unixSockets = { ...settings.sandboxUnixSockets, applies };
  const unixSocketsShown = settings.sandboxUnixSockets.value ? "allowed" : "refused";
  const tmpfsSizeMiB = {
    ...(settings.sandboxTmpfsSizeMiB ?? { value: DEFAULT_TMPFS_SIZE_MIB, source: "default" }),
    applies,
  };
  const tmpfsShown = `${tmpfsSizeMiB.value} MiB (each of the sandbox's /tmp and /dev/shm)`;
  const rows = [
    row("sandbox.policy", policy.value, policy.source),
    row("sandbox.network", networkShown, applies ? network.source : undefined),
    ...(applies ? [row("sandbox.allowUnixSockets", unixSocketsShown, unixSockets.source)] : []),
    ...(applies ? [row("sandbox.tmpfsSizeMiB", tmpfsShown, tmpfsSizeMiB.source)] : []),
    ...settings.sandboxHidden.map((path) => row("sandbox.hidden", path.value, path.source)),
    row("sandbox", describeSandboxAvailability(availability).replace(/^sandbox:? /, ""), undefined),
  ];
  const hidden = settings.sandboxHidden;
  const json = { policy, network, unixSockets, tmpfsSizeMiB, hidden, availability };
  return { rows, json };
}
