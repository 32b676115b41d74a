/**
 * Permission flags that contradict each other on one command line: a usage error naming both,
 * never one of them silently winning. A flag over a config file's setting is no contradiction
 * (flags win), nor is an explicit `--permission-mode` over `--autopilot`'s default mode.
 */

import type { PermissionMode } from "../permissions/permission-mode.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import { type ParsedValues, UsageError } from "./argument-flags.js";

/**
 * @throws UsageError when `--allow-all-tools` (or `--yolo`) comes with a `--permission-mode`
 * other than `full-access`, or `--permission-mode auto` with `--sandbox danger-full-access`.
 */
export function checkPermissionFlags(
  values: ParsedValues,
  mode: PermissionMode | undefined,
  policy: SandboxPolicy | undefined,
): void {
  const allowAll =
    values["allow-all-tools"] === true ? "--allow-all-tools" : values.yolo ? "--yolo" : undefined;
  if (allowAll !== undefined && mode !== undefined && mode !== "full-access") {
    throw new UsageError(
      `${allowAll} and --permission-mode ${mode} contradict each other ` +
        `(${allowAll} is --permission-mode full-access): give one of them`,
    );
  }
  if (mode === "auto" && policy === "danger-full-access") {
    throw new UsageError(
      "--permission-mode auto and --sandbox danger-full-access contradict each other (auto runs " +
        "commands without asking because they run in the sandbox, and danger-full-access has " +
        "none): give --permission-mode full-access to run commands unconfined without asking",
    );
  }
}
