import { bubblewrapArguments } from "./bubblewrap-arguments.js";
import type { CommandLine, SandboxPolicy, SandboxSettings } from "./policy.js";

/**
 * How a runner turns `command` into what it spawns under `policy`: `bash -c command` for
 * `danger-full-access`, else `bwrap … -- bash -c command` ({@link bubblewrapArguments}; the file
 * system is read at each call). Check {@link sandboxAvailability} first: this does not.
 */
export function sandboxWrap(
  policy: SandboxPolicy,
  settings: SandboxSettings,
): (command: string) => CommandLine {
  if (policy === "danger-full-access") {
    return (command) => ({ file: "bash", args: ["-c", command] });
  }
  const file = settings.bwrapPath ?? "bwrap";
  return (command) => ({ file, args: bubblewrapArguments(policy, settings, command) });
}
