import { resolve } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { errorMessage, warningLine } from "../events/errors.js";
import type { SessionHost } from "../session/host.js";
import { InvalidSessionIdError } from "../session/paths.js";
import type { Session } from "../session/session.js";
import { SessionLockedError } from "../session/session-store.js";
import type { AnyTool } from "../tools/define-tool.js";
import { parseServers } from "../tools/mcp/config.js";
import { isSandboxPolicy, SANDBOX_POLICIES } from "../tools/sandbox/policy.js";
import { AcpSession, type AcpSessionContext } from "./acp-session.js";
import { internalError, invalidParams, invalidRequest } from "./errors.js";
import {
  defaultMode,
  isModeId,
  MODE_OPTION_ID,
  MODEL_OPTION_ID,
  SANDBOX_OPTION_ID,
} from "./modes.js";
import { type FollowAnswer, type FollowedSession, followElsewhere } from "./remote-session.js";
import { hasUserPrompt } from "./replay.js";
import {
  type AcpSessionModel,
  announceAfterAnswer,
  checkDirectory,
  openSession,
  repairMeta,
  sessionModel,
} from "./session-setup.js";

/** Sessions per `session/list` page. */
const LIST_PAGE_SIZE = 100;

type Client = acp.AgentContext;

/** What the session requests need from the connection that answered `initialize`. */
export interface AcpConnectionState {
  /** Diagnostics (stderr); never stdout, which carries only protocol messages. */
  log: (line: string) => void;
  /** Tools besides the built-in ones. */
  extraTools: readonly AnyTool[];
  /** The client's capabilities from `initialize`. */
  offered: () => acp.ClientCapabilities | undefined;
  /** Whether `usage_update`s are still sent on this connection. */
  sendsUsage: () => boolean;
}

/**
 * The ACP v1 requests about sessions (setup, list, close, delete, modes, config options, prompt,
 * cancel) over one session host, and the sessions this connection opened. The session stack
 * (host, store, providers, tools) loads with this module: `TurnloopAcpAgent` imports it on the
 * first request that needs it, after `initialize` was answered.
 */
export class AcpSessionRequests {
  private readonly sessions = new Map<string, AcpSession>();
  /** Sessions another worker holds, followed here (remote-session.ts), with their opening. */
  private readonly remotes = new Map<string, FollowedSession>();
  /** Ids being loaded or resumed, so two opens of one log never race. */
  private readonly opening = new Set<string>();
  private readonly host: SessionHost;
  private readonly connection: AcpConnectionState;

  constructor(host: SessionHost, connection: AcpConnectionState) {
    this.host = host;
    this.connection = connection;
  }

  /** Cancels every running prompt and closes every session (the connection has closed). */
  async shutdown(): Promise<void> {
    const remotes = [...this.remotes.values()].map(({ remote }) => remote);
    const sessions = [...this.sessions.values(), ...remotes];
    this.sessions.clear();
    this.remotes.clear();
    await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
    await this.host.closeAll();
  }

  /**
   * ACP v1 `session/prompt` in the open session `sessionId`. A followed session's prompt runs on its
   * owner; when none holds it any more, it is claimed here (after what was stored meanwhile).
   */
  async prompt(
    sessionId: string,
    prompt: acp.ContentBlock[],
    signal: AbortSignal,
  ): Promise<acp.PromptResponse> {
    const followed = this.remotes.get(sessionId);
    if (followed === undefined) {
      return this.opened(sessionId).prompt(prompt, signal);
    }
    const answer = await followed.remote.prompt(prompt, signal);
    if (answer !== "claim") {
      return answer;
    }
    await this.closeOpen(sessionId);
    const { remote, client, mcpServers } = followed;
    const claimed = await this.reopen({ sessionId, cwd: remote.cwd }, client, mcpServers);
    return claimed.prompt(prompt, signal);
  }

  /** ACP v1 `session/cancel`: cancels the session's running prompt, if any. */
  cancel(sessionId: string): void {
    this.sessions.get(sessionId)?.cancel();
    this.remotes.get(sessionId)?.remote.cancel();
  }

  /** ACP v1 session-setup: `session/new`. Session-scoped updates follow the answer, never precede it. */
  async newSession(params: acp.NewSessionRequest, client: Client): Promise<acp.NewSessionResponse> {
    await checkDirectory(params.cwd);
    const model = sessionModel(this.host.resolveModel());
    const session = await this.host.create(params.cwd, model.id);
    await this.startMcp(session, params.mcpServers);
    const acpSession = new AcpSession(this.sessionContext(client), {
      session,
      model,
      mode: defaultMode(this.host.config),
      folders: this.folders(params.additionalDirectories),
      titled: false,
    });
    this.sessions.set(session.id, acpSession);
    announceAfterAnswer(acpSession);
    return {
      sessionId: session.id,
      modes: acpSession.modes(),
      configOptions: acpSession.configOptions(),
    };
  }

  /**
   * ACP v1 session-setup: `session/load` replays the whole conversation (case 25), then answers.
   * A call left open by a crash gets its interrupted result on disk first (case 01, variant C).
   */
  async loadSession(
    params: acp.LoadSessionRequest,
    client: Client,
  ): Promise<acp.LoadSessionResponse> {
    const followed = await this.followElsewhere(params.sessionId, client, params.mcpServers, true);
    if (followed !== undefined) {
      return followed;
    }
    const acpSession = await this.reopen(params, client, params.mcpServers);
    const { events } = await this.host.readEvents(acpSession.id);
    acpSession.replay(events);
    await acpSession.flush();
    announceAfterAnswer(acpSession);
    return {
      modes: acpSession.modes(),
      configOptions: acpSession.configOptions(),
      ...repairMeta(acpSession.session),
    };
  }

  /** ACP v1 `session/resume`: reopens without replaying anything. */
  async resumeSession(
    params: acp.ResumeSessionRequest,
    client: Client,
  ): Promise<acp.ResumeSessionResponse> {
    const mcpServers = params.mcpServers ?? [];
    const followed = await this.followElsewhere(params.sessionId, client, mcpServers, false);
    if (followed !== undefined) {
      return followed;
    }
    const acpSession = await this.reopen(params, client, mcpServers);
    announceAfterAnswer(acpSession);
    return {
      modes: acpSession.modes(),
      configOptions: acpSession.configOptions(),
      ...repairMeta(acpSession.session),
    };
  }

  /**
   * Follows `sessionId` when another live worker holds it (issue 22, remote-session.ts).
   * @returns the load or resume answer; `undefined` when it is not held elsewhere: open it here.
   */
  private followElsewhere(
    sessionId: string,
    client: Client,
    mcpServers: readonly acp.McpServer[],
    replay: boolean,
  ): Promise<FollowAnswer | undefined> {
    return this.exclusively(sessionId, async () => {
      const remote = await followElsewhere(this.sessionContext(client), sessionId, replay);
      if (remote !== undefined) {
        this.remotes.set(sessionId, { remote, client, mcpServers });
      }
      return remote?.answer();
    });
  }

  /** Closes what this connection has of `sessionId` and runs `open`, one open of an id at a time. */
  private async exclusively<T>(sessionId: string, open: () => Promise<T>): Promise<T> {
    if (this.opening.has(sessionId)) {
      throw invalidRequest(`Session ${sessionId} is being opened by another request.`);
    }
    this.opening.add(sessionId);
    try {
      await this.closeOpen(sessionId);
      return await open();
    } finally {
      this.opening.delete(sessionId);
    }
  }

  private reopen(
    params: { sessionId: string; cwd: string; additionalDirectories?: string[] | null },
    client: Client,
    mcpServers: readonly acp.McpServer[],
  ): Promise<AcpSession> {
    const { sessionId } = params;
    return this.exclusively(sessionId, async () => {
      const session = await openSession(this.host, sessionId);
      let model: AcpSessionModel;
      try {
        model = sessionModel(this.host.modelForSession(session.start.model));
      } catch (error) {
        await this.host.close(session);
        throw error;
      }
      if (resolve(params.cwd) !== resolve(session.cwd)) {
        this.connection.log(
          `turnloop: session ${sessionId} works in ${session.cwd}; the requested cwd ${params.cwd} is ignored`,
        );
      }
      await this.startMcp(session, mcpServers);
      const { events } = await this.host.readEvents(sessionId);
      const acpSession = new AcpSession(this.sessionContext(client), {
        session,
        model,
        mode: defaultMode(this.host.config),
        folders: this.folders(params.additionalDirectories),
        titled: hasUserPrompt(events),
      });
      this.sessions.set(sessionId, acpSession);
      return acpSession;
    });
  }

  /** ACP v1 session-list: this home's sessions, newest first, optionally of one cwd. */
  async listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    const start = params.cursor == null ? 0 : Number.parseInt(params.cursor, 10);
    if (!Number.isInteger(start) || start < 0) {
      throw invalidParams("unknown cursor", { cursor: params.cursor });
    }
    const sessions: acp.SessionInfo[] = [];
    for (const summary of await this.host.list({ cwd: params.cwd ?? undefined })) {
      if (summary.cwd === null) {
        continue;
      }
      sessions.push({
        sessionId: summary.sessionId,
        cwd: summary.cwd,
        updatedAt: summary.lastActivity,
        ...(summary.firstPrompt === null ? {} : { title: summary.firstPrompt }),
      });
    }
    const page = sessions.slice(start, start + LIST_PAGE_SIZE);
    const next = start + LIST_PAGE_SIZE;
    return { sessions: page, ...(next < sessions.length ? { nextCursor: String(next) } : {}) };
  }

  /** ACP v1 `session/close`: cancels the running prompt, then frees the session. */
  async closeSession(sessionId: string): Promise<acp.CloseSessionResponse> {
    if (!this.remotes.has(sessionId)) {
      this.opened(sessionId);
    }
    await this.closeOpen(sessionId);
    return {};
  }

  /** ACP v1 session-delete: idempotent; an unknown id succeeds. */
  async deleteSession(sessionId: string): Promise<acp.DeleteSessionResponse> {
    await this.closeOpen(sessionId);
    try {
      await this.host.delete(sessionId);
    } catch (error) {
      if (error instanceof SessionLockedError) {
        throw invalidRequest(error.message, { sessionId, owner: error.owner ?? null });
      }
      if (!(error instanceof InvalidSessionIdError)) {
        throw internalError(`Could not delete session ${sessionId}: ${errorMessage(error)}`);
      }
    }
    return {};
  }

  /** ACP v1 session-modes: `session/set_mode`; the config options follow with `config_option_update`. */
  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    const acpSession = this.opened(params.sessionId);
    if (!isModeId(params.modeId)) {
      throw invalidParams(`unknown mode ${params.modeId}; use ask, auto or autopilot`);
    }
    acpSession.setMode(params.modeId, { mode: false, config: true });
    return {};
  }

  /**
   * `session/set_model` (ACP's former unstable model API, still sent by clients built on it):
   * the same switch as the `model` config option, through the session host's model resolution;
   * the config options follow with `config_option_update`.
   * @throws `-32602` for a model that does not resolve.
   */
  setModel(params: { sessionId: string; modelId: string }): Record<string, never> {
    this.opened(params.sessionId).setModel(params.modelId, true);
    return {};
  }

  /** ACP v1 session-config-options: `mode` (also sends `current_mode_update`) and `model`. */
  async setConfigOption(
    params: acp.SetSessionConfigOptionRequest,
  ): Promise<acp.SetSessionConfigOptionResponse> {
    const acpSession = this.opened(params.sessionId);
    const { value } = params;
    if (typeof value !== "string") {
      throw invalidParams(`option ${params.configId} takes a value id, not a boolean`);
    }
    if (params.configId === MODE_OPTION_ID) {
      if (!isModeId(value)) {
        throw invalidParams(`unknown mode ${value}; use ask, auto or autopilot`);
      }
      acpSession.setMode(value, { mode: true, config: false });
    } else if (params.configId === MODEL_OPTION_ID) {
      acpSession.setModel(value, false);
    } else if (params.configId === SANDBOX_OPTION_ID) {
      if (!isSandboxPolicy(value)) {
        throw invalidParams(`unknown sandbox policy ${value}; use ${SANDBOX_POLICIES.join(", ")}`);
      }
      const refused = await this.host.sandbox.refusal(value);
      if (refused !== undefined) {
        throw invalidParams(refused, { value });
      }
      acpSession.setSandbox(value);
    } else {
      throw invalidParams(`unknown config option ${params.configId}`);
    }
    return { configOptions: acpSession.configOptions() };
  }

  /** The open session `sessionId`. @throws `-32002` with `data.sessionId` when there is none. */
  private opened(sessionId: string): AcpSession {
    const acpSession = this.sessions.get(sessionId);
    if (acpSession === undefined && this.remotes.has(sessionId)) {
      throw invalidRequest(
        `Session ${sessionId} runs on another worker: only session/prompt, session/cancel and session/close reach it from here.`,
        { sessionId },
      );
    }
    if (acpSession === undefined) {
      throw acp.RequestError.sessionNotFound(sessionId);
    }
    return acpSession;
  }

  private async closeOpen(sessionId: string): Promise<void> {
    const followed = this.remotes.get(sessionId);
    this.remotes.delete(sessionId);
    await followed?.remote.close();
    const acpSession = this.sessions.get(sessionId);
    if (acpSession !== undefined) {
      this.sessions.delete(sessionId);
      await acpSession.close();
    }
  }

  private sessionContext(client: Client): AcpSessionContext {
    return {
      host: this.host,
      client,
      offered: this.connection.offered(),
      sendsUsage: this.connection.sendsUsage,
      extraTools: this.connection.extraTools,
    };
  }

  /** The request's folders; the run config's `--add-dir` folders are the host's. */
  private folders(additionalDirectories: readonly string[] | null | undefined): string[] {
    return [...(additionalDirectories ?? [])];
  }

  /**
   * Starts the session's MCP servers: the editor's (ACP session-setup `mcpServers`) over the
   * config files'. They start in the background; problems go to stderr.
   */
  private async startMcp(session: Session, servers: readonly acp.McpServer[]): Promise<void> {
    const given = parseServers(
      Object.fromEntries(servers.map((server) => [server.name, server])),
      "session mcpServers",
    );
    for (const problem of given.problems) {
      this.connection.log(warningLine(`MCP server not started: ${problem}`));
    }
    await this.host.startMcpServers(session, given.servers, this.connection.log);
  }
}
