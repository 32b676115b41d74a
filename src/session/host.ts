/**
 * The one place every face (`-p`, `turnloop acp`, the SDK server) opens, lists and deletes
 * sessions, resolves their models and builds their permission policy. A face adds only what its
 * protocol needs (how it asks, what it forwards).
 */

import type { Authorize } from "../agent/tool-calls.js";
import type { ResumeDetails } from "../events/events.js";
import { secretValues } from "../events/secrets.js";
import { environmentContextWindow } from "../llm/context-window.js";
import type { ModelConfiguration } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { McpServerConfigs } from "../tools/mcp/config.js";
import { ProcessRunner } from "../tools/process-runner.js";
import {
  agentSettingsFor,
  type FaceCallbacks,
  type PermissionCallbacks,
  type PreparedRun,
  permissionGateFor,
  prepareRun,
} from "./agent-settings.js";
import { commandEnvironment } from "./command-environment.js";
import { SessionFolderGoneError } from "./config-paths.js";
import { ModelHost, type ModelHostSettings, type ModelResolution } from "./host-models.js";
import { type McpStartOptions, openMcpServers, startupWaitFrom } from "./mcp-servers.js";
import { openSessionStore } from "./open-store.js";
import { type Reopening, ReopenRefusedError } from "./opening.js";
import type { ConversationState } from "./resume-fold.js";
import type { RunConfig } from "./run-config.js";
import { HostSandbox } from "./sandbox-setup.js";
import { Session, type SessionAgentSettings } from "./session.js";
import { SessionRuns } from "./session-runs.js";
import {
  resolveSessionId,
  type SessionStore,
  type SessionSummary,
  type StoredLog,
} from "./session-store.js";

export type { ModelResolution } from "./host-models.js";
export { type Reopening, ReopenRefusedError } from "./opening.js";

// Not an ES module import: its facade loads Node's file streams (face-config.ts says why).
const { statSync } = process.getBuiltinModule("node:fs");

export interface SessionHostSettings extends ModelHostSettings {
  /** `$TURNLOOP_HOME`. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** The face's run config ({@link resolveRunConfig}). */
  config: RunConfig;
  /** Where sessions are kept; default the file store under `home` (open-store.ts). */
  store?: SessionStore;
  /**
   * Sessions hold their writer lease only while they write, so another server process can resume
   * and use them; idle, it stays held idle against every other opener (idle-lease.ts; the SDK
   * server). Ignored with a store that has an inbox: workers
   * reach a session's holder through it (PostgreSQL).
   */
  releaseWhenIdle?: boolean;
}

export class SessionHost extends ModelHost {
  readonly home: string;
  /** Where this host's sessions are kept; every read, list and delete goes through it. */
  readonly store: SessionStore;
  /** How commands run unless a face picks another runner, and the host environment's secrets. */
  get commands(): PreparedRun["commands"] {
    return this.runs.host.commands;
  }

  /** The sandbox of this host's sessions' commands (README, "Sandbox"). */
  get sandbox(): HostSandbox {
    return this.runs.host.sandbox;
  }

  get secrets(): PreparedRun["secrets"] {
    return this.runs.host.secrets;
  }

  /** The run of each session: the host's own (its rules parsed, its system prompt file read
   * once) or its folder's (session-runs.ts). */
  private readonly runs: SessionRuns;
  /** Sessions opened through this host and not closed yet, by id. */
  private readonly sessions = new Map<string, Session>();
  /** Reopens in flight, by id ({@link open} is single-flight). */
  private readonly opening = new Map<string, Promise<Session>>();
  /** Closes in flight, by id: an open of the same id waits for its lock to be released. */
  private readonly closing = new Map<string, Promise<void>>();
  /** See {@link SessionHostSettings.releaseWhenIdle}. */
  private readonly releaseWhenIdle: boolean;
  /** The config profiles' key variables: secrets whatever their names. */
  private readonly secretVariables: readonly string[];

  /** @throws Error naming a malformed allow or deny rule or an unreadable `--system-prompt-file`. */
  constructor(settings: SessionHostSettings) {
    super(settings.config, settings.env, settings);
    this.home = settings.home;
    this.store = settings.store ?? openSessionStore(settings.home, settings.config.store?.value);
    this.releaseWhenIdle = settings.releaseWhenIdle === true && this.store.inbox === undefined;
    const { config, env } = settings;
    // The loop reads no environment: `--context-window`, else TURNLOOP_CONTEXT_WINDOW.
    const contextWindow = config.contextWindow?.value ?? environmentContextWindow(env);
    const profileKeys = Object.values(config.providers).flatMap(({ value }) =>
      value.apiKeyEnv === undefined ? [] : [value.apiKeyEnv],
    );
    this.secretVariables = profileKeys;
    // A local `bash -c` process group, in the host's environment without any provider key nor
    // variable whose name looks secret (command-environment.ts).
    const environment = commandEnvironment(env, profileKeys, config.keptVariables);
    const commands = { runner: new ProcessRunner(), env: environment };
    const run = prepareRun(config, settings.home, {
      commands,
      sandbox: new HostSandbox(config, commands.env, settings.home, commands.runner),
      secrets: secretValues(env, profileKeys),
      ...(contextWindow === undefined ? {} : { contextWindow }),
    });
    this.runs = new SessionRuns(run, settings.home, env);
  }

  /**
   * The agent settings of a prompt with `model` in `session`, derived from the run config with
   * the face's callbacks (see `agent-settings.ts`). The provider is the shared one unless the
   * face brings its own (e.g. one that adds an app's headers); its advice is in the face's words.
   */
  agentSettings(
    session: Session,
    model: ModelConfiguration,
    face: Omit<FaceCallbacks, "provider"> & { provider?: Provider },
  ): SessionAgentSettings {
    const provider = face.provider ?? this.provider(model);
    return agentSettingsFor(session, this.runOf(session), { ...face, provider }, this.settingNames);
  }

  /** A permission gate of `session` under the run config with the face's callbacks. */
  permissionGate(session: Session, face: PermissionCallbacks): Authorize {
    return permissionGateFor(session, this.runOf(session), face);
  }

  /**
   * The run config `session` runs with: {@link config}, or for a session working in another
   * folder the one resolved for that folder when it was opened (folder-run.ts).
   */
  configOf(session: Session): RunConfig {
    return this.runOf(session).config;
  }

  /** The sandbox of `session`'s commands ({@link configOf}'s). */
  sandboxOf(session: Session): HostSandbox {
    return this.runOf(session).sandbox;
  }

  private runOf(session: Session): PreparedRun {
    return this.runs.of(session);
  }

  // Sessions.

  /**
   * A new session in `cwd`, open for writing (locked) until {@link close}; with
   * `saveAtFirstPrompt`, stored (and locked) only from its first prompt on; `morePrompts`: see
   * `DeferredAppender.morePrompts`. It runs with `cwd`'s run config ({@link configOf}).
   * @throws ConfigError naming `cwd`'s invalid project file (nothing stored); as
   *   {@link Session.create}.
   */
  async create(
    cwd: string,
    modelId: string,
    options: { sessionId?: string; saveAtFirstPrompt?: boolean; morePrompts?: boolean } = {},
  ) {
    const run = await this.runs.in(cwd);
    const opening = { ...options, ...this.openingOptions() };
    return this.track(await Session.create(this.store, cwd, modelId, opening), run);
  }

  /**
   * The session `sessionId`, open for writing (locked) until {@link close}: the one this host has
   * open already, else reopened from its log. Single-flight: concurrent calls for one id share one
   * reopen (one `session.resume` event, one lock), and an open waits for a {@link close} of the
   * same id in flight. Every caller gets the same {@link Session}, so closing it closes it for all.
   * `resumeDetails` go in the `session.resume` event of a reopen (the first caller's). It runs
   * with its own folder's run config ({@link configOf}), whatever folder this host started in.
   * `refuse`, a face's check (its model resolves here; `sessions compact`: something to compact),
   * runs with the folder's before anything is written (it may throw its own error); the first
   * caller's counts.
   * @throws as {@link Session.resume}: `SessionLockedError` names the process that has it open;
   *   ConfigError naming its folder's invalid project file, or `SessionFolderGoneError` (a
   *   ConfigError) when its folder is not an existing directory, or `ReopenRefusedError` (a
   *   ConfigError) with what `refuse` said (the session is closed again, its log unchanged).
   */
  open(
    sessionId: string,
    resumeDetails?: ResumeDetails,
    refuse?: (reopening: Reopening) => string | undefined,
  ): Promise<Session> {
    const open = this.sessions.get(sessionId);
    if (open !== undefined) {
      return Promise.resolve(open);
    }
    const closing = this.closing.get(sessionId);
    if (closing !== undefined) {
      return closing.catch(() => undefined).then(() => this.open(sessionId));
    }
    let opening = this.opening.get(sessionId);
    if (opening === undefined) {
      // Its folder and that folder's config are checked before anything is written: a refused
      // reopen leaves the log as it was (no `session.resume`).
      let run = this.runs.host;
      const beforeResume = async ({ cwd, model }: Reopening["start"], state: ConversationState) => {
        if (!isDirectory(cwd)) {
          throw new SessionFolderGoneError(sessionId, cwd);
        }
        run = await this.runs.in(cwd);
        const contextWindow = (id: string) => this.contextWindowOf(id, run.config);
        const refusal = refuse?.({ start: { cwd, model }, state, contextWindow });
        if (refusal !== undefined) {
          throw new ReopenRefusedError(refusal);
        }
      };
      const options = { ...this.openingOptions(), resumeDetails, beforeResume };
      opening = Session.resume(this.store, sessionId, options)
        .then((session) => this.track(session, run))
        .finally(() => this.opening.delete(sessionId));
      this.opening.set(sessionId, opening);
    }
    return opening;
  }

  /**
   * Why a reopened session's model ({@link modelForSession} of the one it ran with) cannot run
   * here, without the message's `turnloop: `; undefined when it can. For {@link open}'s `refuse`.
   */
  modelRefusal(recorded: string): string | undefined {
    const resolved = this.modelForSession(recorded);
    return resolved.ok ? undefined : resolved.message.replace(/^turnloop: /, "");
  }

  /**
   * The model reopened `session` runs with: {@link modelForSession} of the one it ran with (its
   * last `session.model_change`'s, else its start's). When that is another (`--model`, or its own
   * does not resolve here), a `session.model_change` is recorded and `previous` names the model
   * it ran with, for the face to say so (and `unavailable` why, when it does not resolve here).
   */
  modelOfResumed(session: Session): ModelResolution & { previous?: string; unavailable?: string } {
    const own = session.changedModel ?? session.start.model;
    const resolved = this.modelForSession(own);
    if (!resolved.ok || resolved.configuration.id === own) {
      return resolved;
    }
    this.recordModelChange(session, own, resolved.configuration.id);
    return { ...resolved, previous: own };
  }

  /**
   * Records `session.model_change` when `session` switches from `previous` to `next` (a resume,
   * `/model`, ACP's model option), so that it is resumed with `next` ({@link modelOfResumed}).
   */
  recordModelChange(session: Session, previous: string, next: string): void {
    if (previous !== next) {
      session.emit({
        type: "session.model_change",
        data: { previousModel: previous, newModel: next },
      });
    }
  }

  /** The session `sessionId` when this host has it open (not while it is being opened). */
  get(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * Starts `session`'s MCP servers in the background: the config files' (`mcp.json`, a trusted
   * project's `.mcp.json`, `--mcp-config`) and then `given` (a face's: ACP `mcpServers`, an SDK
   * session config), which win by name. Problems are written to `log`; nothing waits for a server.
   * `trust`, when given, asks the user about an untrusted project's servers (mcp-servers.ts);
   * `toolNaming` is how the face names MCP tools to the model (`turnloop` by default).
   */
  async startMcpServers(
    session: Session,
    given: McpServerConfigs,
    log: NonNullable<McpStartOptions["log"]>,
    trust?: McpStartOptions["trust"],
    toolNaming?: McpStartOptions["toolNaming"],
  ): Promise<void> {
    const startupWaitMs = startupWaitFrom(this.env);
    await openMcpServers(
      session,
      {
        home: this.home,
        configFiles: this.config.mcpConfigs.map((file) => file.value),
        face: given,
      },
      {
        env: this.env,
        log,
        ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
        ...(trust === undefined ? {} : { trust }),
        ...(toolNaming === undefined ? {} : { toolNaming }),
      },
    );
  }

  /** Syncs and closes `session`'s log (and its MCP servers) and releases its lock. */
  async close(session: Session): Promise<void> {
    if (this.sessions.get(session.id) === session) {
      this.sessions.delete(session.id);
    }
    const closing = session.close();
    this.closing.set(session.id, closing);
    try {
      await closing;
    } finally {
      if (this.closing.get(session.id) === closing) {
        this.closing.delete(session.id);
      }
    }
  }

  /** Shutdown: closes every open session, then the store's connections. Never throws. */
  async closeAll(): Promise<void> {
    const sessions = [...this.sessions.values()];
    await Promise.all(sessions.map((session) => this.close(session).catch(() => undefined)));
    await this.store.close?.().catch(() => undefined);
  }

  /**
   * The stored sessions, newest first; with `cwd`, only those whose `session.start` cwd is that
   * folder (both resolved to absolute paths). See `SessionStore.list`.
   */
  async list(filter: { cwd?: string | undefined } = {}): Promise<SessionSummary[]> {
    return this.store.list(filter);
  }

  /** One stored session as {@link list} lists it, from its metadata alone. See `SessionStore.summary`. */
  async summary(sessionId: string): Promise<SessionSummary | undefined> {
    return this.store.summary(sessionId);
  }

  /**
   * The newest session in `cwd` that holds a prompt, for `--continue`: not an empty one an editor
   * opened (ACP `session/new` stores a session at once), which the pickers mark `(no prompt yet)`.
   */
  async newestIn(cwd: string): Promise<SessionSummary | undefined> {
    const sessions = await this.store.list({ cwd });
    return sessions.find((session) => session.firstPrompt !== null || session.turns > 0);
  }

  /** The full id of the session `idOrPrefix` names (see {@link resolveSessionId}). */
  resolveId(idOrPrefix: string) {
    return resolveSessionId(this.store, idOrPrefix);
  }

  /** The persisted events of a session, read without the lease (a writer may be appending). */
  async readEvents(sessionId: string): Promise<StoredLog> {
    // Open here: unsaved events come from memory, others are committed first (an idle lease
    // holds them until it is taken back), so a reader sees every event this process emitted.
    const unsaved = await this.sessions.get(sessionId)?.logForReaders();
    return unsaved ?? this.store.read(sessionId);
  }

  /**
   * Deletes a session that nobody has open for writing.
   * @returns `false` when there is no such session.
   * @throws SessionLockedError when it is open (close it first); InvalidSessionIdError; I/O errors.
   */
  delete(sessionId: string): Promise<boolean> {
    return this.store.delete(sessionId);
  }

  /** How this host opens every session: its environment's secrets, its lease. */
  private openingOptions() {
    const { env: environment, secretVariables, releaseWhenIdle } = this;
    return { environment, secretVariables, releaseWhenIdle };
  }

  private track(session: Session, run: PreparedRun): Session {
    this.sessions.set(session.id, session);
    this.runs.track(session, run);
    return session;
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
