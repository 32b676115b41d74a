/**
 * Where a session's MCP servers come from, and starting them with the session.
 *
 * Sources, merged by server name, later ones winning: the user's `$TURNLOOP_HOME/mcp.json`, the
 * `mcpServers` of `$TURNLOOP_HOME/config.json` (read by the config module, `./config.ts`), the
 * project's `.mcp.json` and the `mcpServers` of its `.turnloop/config.json` (in the folder of the
 * session's project, config-paths.ts `projectFolder`; only once the user has allowed that project, since a cloned repository must not start programs
 * by itself), `--mcp-config FILE`, then what the face passes (ACP `mcpServers`, the SDK's
 * session config). Trusted projects are remembered in `$TURNLOOP_HOME/trusted-projects.json`.
 */

import { join, resolve } from "node:path";
import { errorMessage, warningLine } from "../events/errors.js";
import {
  type McpServerConfigs,
  type ParsedServers,
  parseServers,
  readServersFile,
} from "../tools/mcp/config.js";
import type { McpServers } from "../tools/mcp/servers.js";
import type { McpToolNaming } from "../tools/mcp/tools.js";
import { type LoadedConfig, loadConfig } from "./config.js";
import {
  askTrustOncePerRun,
  isProjectTrusted,
  type ProjectTrust,
  projectFolder,
  projectTrust,
  trustProject,
  untrustedPhrase,
  untrustProject,
} from "./config-paths.js";
import { PRODUCER_VERSION, type Session } from "./session.js";

export { isProjectTrusted, trustProject, untrustProject };

/** The project file, in the format Claude Code and others read. */
export const PROJECT_FILE = ".mcp.json";

/** What to gather servers from. */
export interface McpSources {
  home: string;
  /** The session's cwd: its `.mcp.json` is the project's file. */
  cwd: string;
  /** `--mcp-config FILE` (resolved against the cwd). */
  configFiles?: readonly string[];
  /** Servers the face was given (ACP `mcpServers`, SDK session config). */
  face?: McpServerConfigs;
  /** The user just allowed the project (its answer may not have been saved). */
  trusted?: boolean;
}

/** The merged servers, problems to report, and a project file waiting for the user's trust. */
export interface GatheredServers extends ParsedServers {
  /** Where each server's configuration came from: a file's path, or "the client" (ACP, SDK). */
  sources: Record<string, string>;
  /** Set when the project's `.mcp.json` has servers and the project is not trusted yet. */
  untrustedProject?: UntrustedProject;
}

/** Gathers the servers of a session from every source (see the module comment). Never throws. */
export async function gatherMcpServers(sources: McpSources): Promise<GatheredServers> {
  // Looked for once: every file below is the same project's, even should a `.git` appear meanwhile.
  const folder = projectFolder(sources.cwd);
  const projectPath = join(folder, PROJECT_FILE);
  const userPath = join(sources.home, "mcp.json");
  const filePaths = (sources.configFiles ?? []).map((file) => resolve(sources.cwd, file));
  const [user, project, trust, ...files] = await Promise.all([
    readServersFile(userPath),
    readServersFile(projectPath),
    sources.trusted === true ? { trusted: true } : projectTrust(sources.home, sources.cwd, folder),
    ...filePaths.map((path) => readServersFile(path, { named: true })),
  ]);
  const trusted = trust.trusted;
  const settings = configFileServers(sources.home, sources.cwd, folder);
  const projectLayers = [
    { path: projectPath, ...project },
    ...settings.filter((file) => file.scope === "project"),
  ];
  const layers = [
    { path: userPath, ...user },
    ...settings.filter((file) => file.scope === "user"),
    ...(trusted ? projectLayers : []),
    ...files.map((file, index) => ({ path: filePaths[index] ?? "--mcp-config", ...file })),
    { path: "the client", servers: sources.face ?? {}, problems: [] },
  ];
  const servers: McpServerConfigs = {};
  const serverSources: Record<string, string> = {};
  const problems: string[] = [];
  for (const layer of layers) {
    Object.assign(servers, layer.servers);
    for (const name of Object.keys(layer.servers)) {
      serverSources[name] = layer.path;
    }
    problems.push(...layer.problems, ...(layer.warnings ?? []));
  }
  const untrustedProject = trusted ? undefined : untrustedProjectOf(projectLayers, trust, problems);
  return {
    servers,
    sources: serverSources,
    problems,
    ...(untrustedProject === undefined ? {} : { untrustedProject }),
  };
}

/**
 * The servers of the project's files (`layers`), held while the project is not trusted (`trust`
 * says why), or undefined when they have none; their files' problems are added to `problems`.
 */
function untrustedProjectOf(
  layers: readonly (ParsedServers & { path: string })[],
  trust: ProjectTrust,
  problems: string[],
): UntrustedProject | undefined {
  const waiting = layers.filter((layer) => hasServersOrProblems(layer));
  const servers: McpServerConfigs = Object.assign({}, ...waiting.map((layer) => layer.servers));
  // Later files win, as for servers that run: each name's file is the last that has it.
  const sources: Record<string, string> = Object.assign(
    {},
    ...waiting.map((layer) =>
      Object.fromEntries(Object.keys(layer.servers).map((name) => [name, layer.path])),
    ),
  );
  problems.push(...waiting.flatMap((layer) => [...layer.problems, ...(layer.warnings ?? [])]));
  const names = Object.keys(servers);
  if (names.length === 0) {
    return undefined;
  }
  return { path: waiting.map((layer) => layer.path).join(" and "), names, servers, sources, trust };
}

function hasServersOrProblems(layer: ParsedServers): boolean {
  return (
    Object.keys(layer.servers).length > 0 ||
    layer.problems.length > 0 ||
    (layer.warnings ?? []).length > 0
  );
}

/**
 * The `mcpServers` of the config files (`$TURNLOOP_HOME/config.json`, the `.turnloop/config.json`
 * of `project`, `cwd`'s), read by the config module; a file it rejects is one problem.
 */
function configFileServers(
  home: string,
  cwd: string,
  project: string,
): Array<ParsedServers & { path: string; scope: "user" | "project" }> {
  let loaded: LoadedConfig;
  try {
    // The face has already read the files and stopped on what it must not ignore.
    loaded = loadConfig(home, cwd, { ignoreErrors: true, project });
  } catch (error) {
    // Reported like any other problem (and before this, by the face that read the settings).
    return [{ path: "", scope: "user", servers: {}, problems: [errorMessage(error)] }];
  }
  return loaded.files.map((file) => ({
    path: file.path,
    scope: file.scope,
    ...parseServers(file.settings.mcpServers, file.path),
  }));
}

/** Settings of the servers' start. */
export interface McpStartOptions {
  env: NodeJS.ProcessEnv;
  /** Start-up wait per server (ms). */
  startupWaitMs?: number;
  /**
   * Where problems are reported besides the session's events (stderr): the files' problems, and
   * (with `about` `status`) each server's failure as its event says it ({@link mcpStatusNotice}),
   * which a face that shows the events itself (the interactive screen) leaves out.
   */
  log?: (line: string, about?: "status") => void;
  /**
   * Asks the user whether the untrusted project's servers may start (the interactive session);
   * a yes is remembered for the project path. Absent when nobody can be asked.
   */
  trust?: (untrusted: UntrustedProject) => Promise<boolean>;
  /** How the servers' tools are named to the model (a face's choice; tools/mcp/tools.ts). */
  toolNaming?: McpToolNaming;
  /** The project's servers waiting for trust: a call of their tools is answered why. */
  untrusted?: UntrustedProject;
}

/** A project `.mcp.json` (or project config) whose servers wait for the user's trust. */
export interface UntrustedProject {
  /** The project's files with servers waiting, joined with " and " (each server's: `sources`). */
  path: string;
  names: string[];
  /** The file each server comes from (`.mcp.json` or `.turnloop/config.json`), by name. */
  sources?: Record<string, string>;
  /** The servers by name, as the files configure them (the trust question shows each). */
  servers?: McpServerConfigs;
  /** Why they wait: no trust, or one given for files that changed since. */
  trust?: ProjectTrust;
}

/**
 * Starts `servers` for `session` (all at once, their start-up not awaited) and hands them to it:
 * prompts offer their tools, status changes become `session.mcp_server_status_changed` events,
 * and closing the session closes them. Resolves once they are handed over (the MCP client,
 * tools/mcp/servers.ts, is loaded then, by `import()`: a run with no server never loads it).
 * Does nothing when there are no servers, or when the session is already closing (its servers
 * were gathered after it ended: nothing would stop them).
 */
export async function startMcpServers(
  session: Session,
  servers: McpServerConfigs,
  options: McpStartOptions,
): Promise<McpServers | undefined> {
  session.mcpLoopTools = (taken) => loopTools(session, options.untrusted, taken);
  if (Object.keys(servers).length === 0 || session.closing) {
    return undefined;
  }
  const [{ McpServers }, { statusEvents }] = await Promise.all([
    import("../tools/mcp/servers.js"),
    import("./mcp-status-events.js"),
  ]);
  if (session.closing) {
    return undefined;
  }
  const started = new McpServers(servers, {
    cwd: session.cwd,
    env: options.env,
    version: PRODUCER_VERSION,
    ...(options.startupWaitMs === undefined ? {} : { startupWaitMs: options.startupWaitMs }),
    ...(options.toolNaming === undefined ? {} : { toolNaming: options.toolNaming }),
    restoredToolNames: session.mcpToolNames.assignments(),
    ...statusEvents(session, options.log),
  });
  session.useMcpServers(started);
  return started;
}

/**
 * The start-up wait from `TURNLOOP_MCP_STARTUP_WAIT_MS` (ms), when set to a number ≥ 0.
 */
export function startupWaitFrom(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env.TURNLOOP_MCP_STARTUP_WAIT_MS);
  return env.TURNLOOP_MCP_STARTUP_WAIT_MS !== undefined && Number.isFinite(value) && value >= 0
    ? value
    : undefined;
}

/**
 * Gathers the servers of `session` (see {@link gatherMcpServers}) and starts them. Problems in
 * the files are reported through `options.log`. An untrusted project file is asked about through
 * `options.trust` when a face can ask (the interactive session; once per project and run:
 * config-paths.ts `askTrustOncePerRun`); otherwise (ACP, the SDK server)
 * it is reported and the project's servers wait until the user allows them (`turnloop mcp
 * trust`, or the question of `turnloop -p`). Servers left waiting are kept on the session
 * ({@link Session.mcpWaitingForTrust}) for `/mcp` to list.
 */
export function openMcpServers(
  session: Session,
  sources: Omit<McpSources, "cwd">,
  options: McpStartOptions,
): Promise<McpServers | undefined> {
  const opening = gatherAndStart(session, sources, options);
  session.mcpOpening = opening.catch(() => undefined);
  return opening;
}

async function gatherAndStart(
  session: Session,
  sources: Omit<McpSources, "cwd">,
  options: McpStartOptions,
): Promise<McpServers | undefined> {
  let gathered = await gatherMcpServers({ ...sources, cwd: session.cwd });
  const { untrustedProject: untrusted } = gathered;
  const ask = options.trust;
  if (
    untrusted !== undefined &&
    ask !== undefined &&
    (await askTrustOncePerRun(session.cwd, () => ask(untrusted)))
  ) {
    try {
      await trustProject(sources.home, session.cwd);
    } catch (error) {
      options.log?.(warningLine(`could not remember the answer: ${errorMessage(error)}`));
    }
    gathered = await gatherMcpServers({ ...sources, cwd: session.cwd, trusted: true });
  }
  reportGathered(gathered, options.log);
  session.mcpWaitingForTrust = gathered.untrustedProject;
  const { untrustedProject } = gathered;
  return startMcpServers(session, gathered.servers, {
    ...options,
    ...(untrustedProject === undefined ? {} : { untrusted: untrustedProject }),
  });
}

/**
 * What a prompt's loop reads of the MCP servers of `session` (tools/mcp/servers.ts `loopTools`),
 * with a call of a tool of a project server waiting for trust (`<server>__<tool>` or `<server>-<tool>`)
 * answered with why that server did not start and how to allow it, never "does not exist"
 * (README "MCP servers"): `MCP server proj was not started: this project is not trusted; run
 * \`turnloop mcp trust\` in /repo to allow its servers from the next session`.
 */
function loopTools(
  session: Session,
  untrusted: UntrustedProject | undefined,
  taken: readonly string[],
): Partial<ReturnType<McpServers["loopTools"]>> {
  const started = session.mcp?.loopTools(taken);
  if (untrusted === undefined) {
    return started ?? {};
  }
  const words = (toolName: string): string | undefined => {
    // A server of another file with the same name runs: its lookup answered for it.
    const running = new Set(session.mcp?.list().map((server) => server.name));
    const server = untrusted.names.find(
      (name) =>
        !running.has(name) && (toolName.startsWith(`${name}__`) || toolName.startsWith(`${name}-`)),
    );
    return server === undefined
      ? undefined
      : `MCP server ${server} was not started: ${untrustedPhrase(untrusted.trust ?? { trusted: false })}; run \`turnloop mcp trust\` in ${projectFolder(session.cwd)} to allow its servers from the next session`;
  };
  return {
    ...started,
    unavailableTool: async (toolName, signal, waiting) =>
      (await started?.unavailableTool(toolName, signal, waiting)) ?? words(toolName),
  };
}

/** Writes the problems of `gathered` and a note about an untrusted project file to `log`. */
export function reportGathered(
  gathered: GatheredServers,
  log: ((line: string) => void) | undefined,
) {
  for (const problem of gathered.problems) {
    log?.(warningLine(`MCP config: ${problem}`));
  }
  const untrusted = gathered.untrustedProject;
  if (untrusted !== undefined) {
    log?.(warningLine(untrustedServersWarning(untrusted)));
  }
}

/**
 * The warning about an untrusted project's MCP servers, not started (without `turnloop: …`), each
 * under its own file: `not starting the MCP servers of /p/.mcp.json (a) and
 * /p/.turnloop/config.json (b): …`.
 */
export function untrustedServersWarning(untrusted: UntrustedProject): string {
  const files = serversByFile(untrusted)
    .map(([path, names]) => `${path} (${names.join(", ")})`)
    .join(" and ");
  return `not starting the MCP servers of ${files}: ${untrustedPhrase(untrusted.trust ?? { trusted: false })}; run \`turnloop mcp trust\` in it to allow them`;
}

/** The file a waiting server of `untrusted` comes from. */
export function untrustedServerSource(untrusted: UntrustedProject, name: string): string {
  return untrusted.sources?.[name] ?? untrusted.path;
}

/** The waiting servers' names grouped by their file, in the files' order. */
export function serversByFile(untrusted: UntrustedProject): Array<[string, string[]]> {
  const groups = new Map<string, string[]>();
  for (const name of untrusted.names) {
    const path = untrustedServerSource(untrusted, name);
    groups.set(path, [...(groups.get(path) ?? []), name]);
  }
  return [...groups];
}
