/**
 * The bubblewrap sandbox (issue 23): a policy that turns a command into the argv a runner spawns.
 * A runner keeps its own process group, timeout, cancellation and output handling; a signal to
 * the `bwrap` process's group ends everything inside, even processes that ignore it or left the
 * group: the sandbox's processes live in a pid namespace of their own whose first process gets
 * SIGKILL when `bwrap` ends (`--die-with-parent`), and the kernel ends a pid namespace's every
 * process with its first. The same ends background processes when the command itself exits,
 * after its shell counted them for the result (left-running.ts).
 */
export {
  type AvailabilityOptions,
  describeSandboxAvailability,
  type SandboxAvailability,
  sandboxAvailability,
} from "./availability.js";
export { bubblewrapArguments } from "./bubblewrap-arguments.js";
export {
  type CommandLine,
  DEFAULT_HIDDEN_PATHS,
  isSandboxPolicy,
  SANDBOX_POLICIES,
  type SandboxPolicy,
  type SandboxSettings,
} from "./policy.js";
export { DEFAULT_HIDDEN_SOCKETS, RealPaths, type ResolvedPath } from "./real-paths.js";
export { sandboxWrap } from "./sandbox-wrap.js";
export { type ConfiningPolicy, SandboxedRunner, sandboxLimitOf } from "./sandboxed-runner.js";
