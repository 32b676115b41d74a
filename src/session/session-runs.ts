/**
 * Which prepared run (agent-settings.ts) each session of a {@link SessionHost} runs with: the
 * host's own, or one resolved for the session's folder when it was opened (folder-run.ts, loaded
 * then). The config files are read as they are when a session opens: a host that lives for hours
 * (`turnloop acp`, the SDK server) reads its own folder's again once they changed since its run
 * was resolved (a rule `/permissions save` wrote, a deny rule added by hand; trial 43 F1), told
 * by their {@link configFilesStamp}.
 */

import { join } from "node:path";
import { errorCode } from "../events/errors.js";
import type { PreparedRun } from "./agent-settings.js";
import { configPaths, projectFolder } from "./config-paths.js";
import { sameFolder } from "./paths.js";
import type { Session } from "./session.js";

// Not an ES module import (face-config.ts says why).
const { statSync } = process.getBuiltinModule("node:fs");

export class SessionRuns {
  /** The host's run, resolved when it started. */
  readonly host: PreparedRun;
  private readonly home: string;
  private readonly env: NodeJS.ProcessEnv;
  /** The run of new sessions in the host's folder and the files' stamp it was resolved at. */
  private own: { run: PreparedRun; stamp: string };
  /** The run of each session that runs with another than {@link host}. */
  private readonly bySession = new WeakMap<Session, PreparedRun>();

  constructor(host: PreparedRun, home: string, env: NodeJS.ProcessEnv) {
    this.host = host;
    this.home = home;
    this.env = env;
    this.own = { run: host, stamp: configFilesStamp(home, host.config.cwd.value) };
  }

  /** The run `session` was opened with ({@link track}). */
  of(session: Session): PreparedRun {
    return this.bySession.get(session) ?? this.host;
  }

  /**
   * The prepared run of sessions in `cwd`: the host's own in its folder (or without the flags to
   * resolve another) while its config files are unchanged, else `cwd`'s config files with the
   * same flags; that too in the host's folder when its project file was not read
   * (`projectSkipped`).
   * @throws ConfigError naming `cwd`'s invalid project file.
   */
  async in(cwd: string): Promise<PreparedRun> {
    const { flags, projectSkipped, cwd: start } = this.host.config;
    if (flags === undefined) {
      return this.host;
    }
    const own = sameFolder(cwd, start.value) && projectSkipped !== true;
    const stamp = own ? configFilesStamp(this.home, cwd) : undefined;
    if (stamp === this.own.stamp) {
      return this.own.run;
    }
    const { folderRun } = await import("./folder-run.js");
    const run = await folderRun(flags, cwd, this.env, this.home, this.host);
    this.own = stamp === undefined ? this.own : { run, stamp };
    return run;
  }

  /** Records that `session` runs with `run` (one {@link in} gave). */
  track(session: Session, run: PreparedRun): void {
    if (run !== this.host) {
      this.bySession.set(session, run);
    }
  }
}

/**
 * What the files a run config of `cwd` is resolved from look like now, as one string: the user's
 * and the project's `config.json`, the project's `.mcp.json` (a trust covers it) and the record of
 * trusted projects (config-paths.ts), each by inode, size and change times in nanoseconds, or why
 * it cannot be looked at. A few `stat` calls, no reading.
 */
function configFilesStamp(home: string, cwd: string): string {
  const folder = projectFolder(cwd);
  const { user, project } = configPaths(home, cwd, folder);
  const paths = [user, project, join(folder, ".mcp.json"), join(home, "trusted-projects.json")];
  return paths.map(fileStamp).join("|");
}

function fileStamp(path: string): string {
  try {
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    return `${stats?.ino}:${stats?.size}:${stats?.mtimeNs}:${stats?.ctimeNs}`;
  } catch (error) {
    return String(errorCode(error));
  }
}
