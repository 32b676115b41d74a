/**
 * The run config of a session that works in a folder other than the one turnloop started in: a
 * resumed one (`--resume <id>`, `/resume`, SDK `session.resume`) or a new one an editor or app
 * opened elsewhere (ACP `session/new {cwd}`, SDK `createSession({workingDirectory})`). It is
 * resolved as for turnloop started in that folder: the same flags and environment, the user's
 * config file, and that folder's `.turnloop/config.json`, trusted or not as that folder is
 * (project-holds.ts). The start folder's project file does not apply to it. Loaded by host.ts
 * only for such a session.
 */

import { type PreparedRun, prepareRun } from "./agent-settings.js";
import { ConfigError } from "./config-paths.js";
import { configuredFace } from "./face-config.js";
import type { RunConfig } from "./run-config.js";
import { HostSandbox, sandboxProblem } from "./sandbox-setup.js";

/**
 * The prepared run of sessions in `folder`, from `flags` (the host's run config's) and `env`;
 * `host` is the host's own prepared run, whose commands, secrets and system prompt file are kept.
 * @throws ConfigError saying the folder's config file is invalid (its message names the file and
 *   the key), or names a sandbox policy bubblewrap cannot honour here.
 */
export async function folderRun(
  flags: NonNullable<RunConfig["flags"]>,
  folder: string,
  env: NodeJS.ProcessEnv,
  home: string,
  host: PreparedRun,
): Promise<PreparedRun> {
  const configured = await configuredFace(flags, env, folder);
  if (!configured.ok) {
    throw new ConfigError(`the session's folder ${folder}: ${configured.message}`);
  }
  const { config } = configured;
  const sandbox = await sandboxProblem(config, env);
  if (sandbox !== undefined && "error" in sandbox) {
    throw new ConfigError(`the session's folder ${folder}: ${sandbox.error}`);
  }
  const sameSandbox =
    JSON.stringify([
      config.sandboxPolicy,
      config.sandboxNetwork,
      config.sandboxUnixSockets,
      config.sandboxTmpfsSizeMiB,
      config.sandboxHidden,
    ]) ===
    JSON.stringify([
      host.config.sandboxPolicy,
      host.config.sandboxNetwork,
      host.config.sandboxUnixSockets,
      host.config.sandboxTmpfsSizeMiB,
      host.config.sandboxHidden,
    ]);
  const { commands } = host;
  return prepareRun(config, home, {
    commands,
    sandbox: sameSandbox
      ? host.sandbox
      : new HostSandbox(config, commands.env, home, commands.runner),
    secrets: host.secrets,
    ...(host.contextWindow === undefined ? {} : { contextWindow: host.contextWindow }),
  });
}
