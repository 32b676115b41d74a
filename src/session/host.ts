/**
 * The one place every face (`-p`, `turnloop acp`, the SDK server) opens, lists and deletes
 * sessions, resolves their models and builds their permission policy. A face adds only what its
 * protocol needs (how it asks, what it forwards).
 */

import {
  createProvider,
  hasProviderPrefix,
  type MissingKey,
  type ModelConfiguration,
  type ProviderTuning,
  resolveModel,
} from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { AskPermission } from "../permissions/permission-decision.js";
import { parseRules } from "../permissions/permission-decision.js";
import type { McpServerConfigs } from "../tools/mcp/config.js";
import type { SessionOptions } from "./agent-settings.js";
import { type EventLogContents, readEventLog } from "./event-log.js";
import { systemPromptOptions } from "./face-config.js";
import type { FaceOptions } from "./face-options.js";
import { openMcpServers, startupWaitFrom } from "./mcp-servers.js";
import { eventsPath } from "./paths.js";
import { Session } from "./session.js";
import {
  deleteSession,
  listSessions,
  newestSessionInCwd,
  resolveSessionId,
  type SessionSummary,
} from "./store.js";

/** A model id resolved to a configuration, or why it cannot be (a message a person can act on). */
export type ModelResolution =
  | { ok: true; configuration: ModelConfiguration }
  | { ok: false; message: string; missingKey?: MissingKey };

/**
 * The part of {@link SessionOptions} that does not depend on the model or on how the face asks:
 * limits, permission rules, folders, provider tuning.
 */
export type SessionPolicy = Omit<SessionOptions, "model" | "provider" | "autopilot" | "ask">;

/** How a face asks its user about a tool call (or, without `ask`, why it cannot). */
export interface Asking {
  ask?: AskPermission;
  noAskReason?: string;
}

export interface SessionHostSettings {
  /** `$TURNLOOP_HOME`. */
  home: string;
  env: NodeJS.ProcessEnv;
  face: FaceOptions;
}

export class SessionHost {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly face: FaceOptions;
  /** Limits, `--allow-tool` / `--deny-tool` rules and folders, parsed once. */
  readonly policy: SessionPolicy;
  /** One provider per model configuration (id, endpoint, key), shared by every session. */
  private readonly providers = new Map<string, Provider>();
  /** Sessions opened through this host and not closed yet. */
  private readonly open = new Set<Session>();

  /** @throws Error naming a malformed `--allow-tool` / `--deny-tool` rule or an unreadable `--system-prompt-file`. */
  constructor(settings: SessionHostSettings) {
    this.home = settings.home;
    this.env = settings.env;
    this.face = settings.face;
    this.policy = {
      tuning: providerTuning(settings.env),
      maxTurns: settings.face.maxTurns,
      maxAutopilotContinues: settings.face.maxAutopilotContinues,
      allowAllTools: settings.face.allowAllTools,
      allow: parseRules(settings.face.allowTools),
      deny: parseRules(settings.face.denyTools),
      folders: settings.face.addDirs,
      ...systemPromptOptions(settings.face, settings.home),
      ...(settings.face.contextWindow === undefined
        ? {}
        : { contextWindow: settings.face.contextWindow }),
      ...(settings.face.contextWindows === undefined
        ? {}
        : { contextWindows: settings.face.contextWindows }),
    };
  }

  // Models.

  /**
   * Resolves `<provider>:<model>` (default: `--model`, else `TURNLOOP_MODEL`) with `--base-url`
   * and the environment's endpoints and keys. Never throws.
   */
  resolveModel(modelId: string | undefined = this.face.model): ModelResolution {
    const { baseUrl } = this.face;
    return resolveModel(
      {
        ...(modelId === undefined ? {} : { model: modelId }),
        ...(baseUrl === undefined ? {} : { baseUrl }),
      },
      this.env,
    );
  }

  /**
   * As {@link resolveModel}, and a bare name (`claude-sonnet-4.5`, as Copilot SDK apps name
   * models) is resolved against the configured providers: the configured or listed
   * (`TURNLOOP_MODELS`) id with that model name, else that name on the configured model's
   * provider and endpoint. Never throws.
   */
  resolveModelName(name: string | undefined): ModelResolution {
    return this.resolveModel(name === undefined ? undefined : this.withProvider(name));
  }

  /** The configured model id (`--model`, else `TURNLOOP_MODEL`) and those in `TURNLOOP_MODELS`. */
  configuredModels(): string[] {
    const listed = (this.env.TURNLOOP_MODELS ?? "").split(",").map((id) => id.trim());
    const ids = [this.face.model ?? this.env.TURNLOOP_MODEL, ...listed];
    return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ""))];
  }

  /** `modelId`, or for a bare name the configured id it names (see {@link resolveModel}). */
  private withProvider(modelId: string): string {
    if (hasProviderPrefix(modelId)) {
      return modelId;
    }
    const configured = this.configuredModels().filter(hasProviderPrefix);
    const named = configured.find((id) => id.slice(id.indexOf(":") + 1) === modelId);
    const first = configured[0];
    if (named !== undefined || first === undefined) {
      return named ?? modelId;
    }
    return `${first.slice(0, first.indexOf(":"))}:${modelId}`;
  }

  /**
   * The model of a reopened session: `--model` when given, else the one recorded in its
   * `session.start`; when that does not resolve (e.g. its key is not set here), the configured
   * model. The recorded model's problem is reported when neither resolves.
   */
  modelForSession(recorded: string): ModelResolution {
    const own = this.resolveModel(this.face.model ?? recorded);
    if (own.ok) {
      return own;
    }
    const configured = this.resolveModel();
    return configured.ok ? configured : own;
  }

  /**
   * Models to offer as choices: `current`, the configured model, the session's recorded one, and
   * those listed in `TURNLOOP_MODELS` (comma-separated), each once and only if it resolves.
   */
  modelChoices(current: string, recorded: string): string[] {
    const [configured, ...listed] = this.configuredModels();
    const candidates = [configured, recorded, ...listed];
    const choices = [current];
    for (const id of candidates) {
      if (id !== undefined && id !== "" && !choices.includes(id) && this.resolveModel(id).ok) {
        choices.push(id);
      }
    }
    return choices;
  }

  /**
   * The provider for `configuration`, created once per id, endpoint and key and then reused by
   * every session and prompt of this host (it keeps what it learned, e.g. an endpoint without
   * `stream_options`).
   */
  provider(configuration: ModelConfiguration): Provider {
    const { id, baseUrl, apiKey, headers } = configuration;
    const key = JSON.stringify([id, baseUrl, apiKey, headers]);
    let provider = this.providers.get(key);
    if (provider === undefined) {
      provider = createProvider(configuration, this.policy.tuning);
      this.providers.set(key, provider);
    }
    return provider;
  }

  /** The {@link SessionOptions} for a prompt with `model`: the policy, the shared provider, how to ask. */
  sessionOptions(
    model: ModelConfiguration,
    settings: { autopilot: boolean } & Asking,
  ): SessionOptions {
    return { ...this.policy, model, provider: this.provider(model), ...settings };
  }

  // Sessions.

  /**
   * A new session in `cwd`, open for writing (locked) until {@link close}.
   * @throws as {@link Session.create}.
   */
  async create(cwd: string, modelId: string, options: { sessionId?: string } = {}) {
    return this.track(await Session.create(this.home, cwd, modelId, options));
  }

  /**
   * Reopens a session for writing (locked) until {@link close}.
   * @throws as {@link Session.resume}: `SessionLockedError` names the process that has it open.
   */
  async resume(sessionId: string): Promise<Session> {
    return this.track(await Session.resume(this.home, sessionId));
  }

  /**
   * Starts `session`'s MCP servers in the background: the config files' (`mcp.json`, a trusted
   * project's `.mcp.json`, `--mcp-config`) and then `given` (a face's: ACP `mcpServers`, an SDK
   * session config), which win by name. Problems are written to `log`; nothing waits for a server.
   */
  async startMcpServers(
    session: Session,
    given: McpServerConfigs,
    log: (line: string) => void,
  ): Promise<void> {
    const startupWaitMs = startupWaitFrom(this.env);
    await openMcpServers(
      session,
      { home: this.home, configFiles: this.face.mcpConfigs, face: given },
      { env: this.env, log, ...(startupWaitMs === undefined ? {} : { startupWaitMs }) },
    );
  }

  /** Syncs and closes `session`'s log (and its MCP servers) and releases its lock. */
  async close(session: Session): Promise<void> {
    this.open.delete(session);
    await session.close();
  }

  /** Closes every session this host still has open (shutdown). Never throws. */
  async closeAll(): Promise<void> {
    const sessions = [...this.open];
    await Promise.all(sessions.map((session) => this.close(session).catch(() => undefined)));
  }

  /**
   * The sessions on disk, newest first; with `cwd`, only those whose `session.start` cwd is that
   * folder (both resolved to absolute paths).
   * @throws as {@link listSessions}.
   */
  async list(filter: { cwd?: string | undefined } = {}): Promise<SessionSummary[]> {
    return listSessions(this.home, filter);
  }

  /** The newest session in `cwd`, for `--continue`. */
  newestIn(cwd: string): Promise<SessionSummary | undefined> {
    return newestSessionInCwd(this.home, cwd);
  }

  /** The full id of the session `idOrPrefix` names (see {@link resolveSessionId}). */
  resolveId(idOrPrefix: string) {
    return resolveSessionId(this.home, idOrPrefix);
  }

  /** The persisted events of a session, read without a lock (a writer may be appending). */
  readEvents(sessionId: string): Promise<EventLogContents> {
    return readEventLog(eventsPath(this.home, sessionId));
  }

  /**
   * Deletes a session that nobody has open for writing.
   * @returns `false` when there is no such session.
   * @throws SessionLockedError when it is open (close it first); InvalidSessionIdError; I/O errors.
   */
  delete(sessionId: string): Promise<boolean> {
    return deleteSession(this.home, sessionId);
  }

  private track(session: Session): Session {
    this.open.add(session);
    return session;
  }
}

/**
 * Tuning knobs from the environment, for tests and slow links: `TURNLOOP_STREAM_IDLE_TIMEOUT_MS`,
 * `TURNLOOP_RETRY_BASE_DELAY_MS`, `TURNLOOP_MAX_RETRIES`.
 */
export function providerTuning(env: NodeJS.ProcessEnv): ProviderTuning {
  const number = (name: string) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const idleTimeoutMs = number("TURNLOOP_STREAM_IDLE_TIMEOUT_MS");
  const initialDelayMs = number("TURNLOOP_RETRY_BASE_DELAY_MS");
  const maxRetries = number("TURNLOOP_MAX_RETRIES");
  return {
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    retry: {
      ...(initialDelayMs === undefined ? {} : { initialDelayMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    },
  };
}
