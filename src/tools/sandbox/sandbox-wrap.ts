import { bubblewrapInvocation } from "./bubblewrap-arguments.js";
import type { CommandLine, SandboxPolicy, SandboxSettings } from "./policy.js";
import { RealPaths } from "./real-paths.js";

/**
 * How a runner turns `command` into what it spawns under `policy`: `bash -c command` for
 * `danger-full-access`, else `bwrap … -- bash -c command` (bubblewrap-arguments.ts `bubblewrapInvocation`, with the seccomp
 * filter bwrap reads on file descriptor 3; the file
 * system is read at each call, `paths` remembering what each place resolved to, by default across
 * the calls of the returned function). Check {@link sandboxAvailability} first: this does not.
 */
export function sandboxWrap(
  policy: SandboxPolicy,
  settings: SandboxSettings,
  paths: RealPaths = new RealPaths(),
): (command: string) => CommandLine {
  if (policy === "danger-full-access") {
    return (command) => ({ file: "bash", args: ["-c", command] });
  }
  const file = settings.bwrapPath ?? "bwrap";
  return (command) => {
    const { args, inputs } = bubblewrapInvocation(policy, settings, command, paths);
    return { file, args, ...(inputs.length === 0 ? {} : { inputs }) };
  };
}
