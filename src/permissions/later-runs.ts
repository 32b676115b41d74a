/**
 * What configures later runs, for permission mode `auto`, which asks before an edit of it
 * (permission-decision.ts, which loads this module at the first edit it judges under `auto`).
 */

import { homedir } from "node:os";
import { basename, sep } from "node:path";
import { isInConfiguredPlace } from "../tools/sandbox/configured-places.js";
import { LATER_RUN_CONFIGURATION, laterRunReason } from "../tools/sandbox/policy.js";
import { linkedPlaceOf } from "../tools/sandbox/real-paths.js";
import { isServerProgram } from "../tools/sandbox/server-programs.js";
import type { PermissionPolicy } from "./permission-types.js";

/**
 * Where the user's MCP config files are, the session's view of them, and where git finds the
 * user's config (the gate's policy).
 */
export type LaterRunPlaces = Pick<PermissionPolicy, "turnloopHome" | "serverConfigs" | "gitUser">;

/**
 * Why an edit of `paths` (absolute) changes what configures later runs: {@link laterRunReasonOf}
 * of the first of them that does; `undefined` when none does.
 */
export function laterRunOfPaths(
  paths: readonly string[],
  places: LaterRunPlaces,
): string | undefined {
  for (const path of paths) {
    const reason = laterRunReasonOf(path, places);
    if (reason !== undefined) {
      return reason;
    }
  }
  return undefined;
}

/**
 * Whether `path` (absolute) is in a file that configures what later runs may do: a `.git` folder
 * (hooks, `core.hooksPath`, aliases: git runs them later, outside any sandbox), the hooks folder
 * and config files its repository's config names (`core.hooksPath`, e.g. husky's `.husky`;
 * `include.path`: tools/sandbox/configured-places.ts) or one of tools/sandbox/policy.ts
 * `LATER_RUN_CONFIGURATION` (`.turnloop`: the project's config file, permission mode, allow
 * rules, base URL; `.mcp.json`: servers that start outside the sandbox; shell start-up files,
 * git's user config and `.local/bin`: run by the shell or git later; an editor's, npm's, yarn's,
 * direnv's and other agents' project files and `.gitmodules`, which those programs act on later;
 * a file an MCP server of turnloop's config files runs, tools/sandbox/server-programs.ts, the
 * user's among them those of `places.turnloopHome`, read through `places.serverConfigs`),
 * wherever it lies: some run of the path's segments spells one (`~/.bashrc`,
 * `/w/.config/git/config`, `.local/bin/git`, `pkg/.vscode/tasks.json`), or one of them in a
 * folder holding the path leads through a symbolic link to where it lands (`/w/cfg/vscode/tasks.json`
 * where `/w/.vscode -> cfg/vscode`, `/w/elsewhere/cfg/git/config` where `/w/.config ->
 * elsewhere/cfg`: tools/sandbox/real-paths.ts `linkedPlaceOf`). Permission mode `auto`
 * asks about an edit to any of them: an edit made without asking must not loosen what later runs
 * may do (the sandbox keeps `.git/hooks`, `.git/config` and that list read-only for commands for
 * the same reason).
 */
export function isConfigurationOfLaterRuns(path: string, places: LaterRunPlaces): boolean {
  return laterRunReasonOf(path, places) !== undefined;
}

/**
 * Why an edit of `path` (absolute) is one of {@link isConfigurationOfLaterRuns} under `places`,
 * as a clause that names the place and who acts on it later (`your editor runs what .vscode
 * names later, …`: tools/sandbox/policy.ts `laterRunReason`); `undefined` when it is none.
 */
export function laterRunReasonOf(path: string, places: LaterRunPlaces): string | undefined {
  const segments = path.split(sep);
  const named = [".git", ...LATER_RUN_CONFIGURATION];
  // Named by the path, or a link to a folder holding it (`.vscode -> cfg/vscode`): the sandbox
  // keeps what such a link leads through read-only too (configuration-chain.ts).
  const place =
    named.find((each) => spells(segments, each.split("/"))) ?? linkedPlaceOf(path, named);
  if (place === ".git") {
    return "git runs the hooks and reads the config in .git later, outside the sandbox";
  }
  if (place !== undefined) {
    return laterRunReason(place, place);
  }
  if (isInConfiguredPlace(path, places.gitUser ?? { home: homedir() })) {
    return "git runs the hooks in the folder the repository's core.hooksPath names, and reads the config files it includes, later, outside the sandbox";
  }
  return isServerProgram(path, places.turnloopHome, places.serverConfigs)
    ? laterRunReason(path, basename(path))
    : undefined;
}

/** Whether `place` (segments) occurs as consecutive segments of `segments`. */
function spells(segments: readonly string[], place: readonly string[]): boolean {
  return segments.some((_, start) =>
    place.every((segment, index) => segments[start + index] === segment),
  );
}
