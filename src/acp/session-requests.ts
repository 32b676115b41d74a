import type * as acp from "@agentclientprotocol/sdk";
import type { SessionHost } from "../session/host.js";
import { OpeningGate } from "../session/opening-gate.js";
import { AcpSession } from "./acp-session.js";
import { DeletedSessions } from "./deleted-sessions.js";
import { invalidRequest, sessionNotFound } from "./errors.js";
import { followElsewhere } from "./follow-elsewhere.js";
import { defaultMode } from "./modes.js";
import { applyConfigOption, applyMode, applyModel } from "./option-requests.js";
import { refuseEmptyPrompt, refuseUndecodableImages } from "./prompt-content.js";
import type { AcpRemoteSession, FollowAnswer, FollowedSession } from "./remote-session.js";
import { hasTitle } from "./replay.js";
import type { AcpConnectionState, AcpSessionContext } from "./session-context.js";
import {
  announceAfterAnswer,
  checkAbsolute,
  checkDirectory,
  checkReopen,
  checkSessionFolder,
  createSession,
  deleteStoredSession,
  listPage,
  openSession,
  repairMeta,
  sessionModel,
  startMcpServers,
} from "./session-setup.js";

type Client = acp.AgentContext;

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
  /** Followed sessions deleted meanwhile: every request naming one answers so. */
  private readonly deleted = new DeletedSessions();
  /** Ids being opened, so two opens of one log never race. */
  private readonly opening = new Set<string>();
  /** Loads and resumes in progress, that the other requests about it wait for (opening-gate.ts). */
  private readonly openings = new OpeningGate();
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
    // What a session could not store even then (storage-error.ts `HeldBackLostError`): stderr.
    const sayLost = (error: unknown) => {
      process.stderr.write(`turnloop: ${error instanceof Error ? error.message : String(error)}\n`);
    };
    await Promise.all(sessions.map((session) => session.close().catch(sayLost)));
    await this.host.closeAll();
  }

  /**
   * ACP v1 `session/prompt` in the open session `sessionId`. A followed session's prompt runs on its
   * owner; when none holds it any more, it is claimed here (after what was stored meanwhile, and
   * what the claim stored: `AcpRemoteSession.claimedBy`).
   */
  prompt(
    sessionId: string,
    prompt: acp.ContentBlock[],
    signal: AbortSignal,
  ): Promise<acp.PromptResponse> {
    refuseEmptyPrompt(prompt);
    refuseUndecodableImages(prompt);
    return this.afterOpening(sessionId, () => this.promptOpen(sessionId, prompt, signal));
  }

  private async promptOpen(
    sessionId: string,
    prompt: acp.ContentBlock[],
    signal: AbortSignal,
  ): Promise<acp.PromptResponse> {
    const followed = this.remotes.get(sessionId);
    if (followed === undefined) {
      return this.opened(sessionId).prompt(prompt, signal);
    }
    const { store } = this.host;
    const failure = (error: unknown) => this.deleted.failure(store, sessionId, error);
    const answer = await followed.remote.prompt(prompt, signal).catch(failure);
    if (answer !== "claim") {
      return answer;
    }
    this.remotes.delete(sessionId);
    const { remote, client, mcpServers } = followed;
    const reopen = () => this.reopen({ sessionId, cwd: remote.cwd }, client, mcpServers);
    const claimed = await remote.claimedBy(reopen).catch(failure);
    return claimed.prompt(prompt, signal);
  }

  /**
   * ACP v1 `session/cancel`: cancels the session's running prompt, if any ({@link holdWhileCancelling}).
   * While the session is being loaded, once the load has answered: a prompt sent before the
   * cancel starts before it (it waits for the same load), so it is the one cancelled.
   */
  cancel(sessionId: string): void {
    const cancel = () => {
      this.sessions.get(sessionId)?.cancel();
      this.remotes.get(sessionId)?.remote.cancel();
      this.holdWhileCancelling(sessionId);
    };
    // A prompt running now is cancelled now: the requests held for its end wait for it.
    const running = this.sessions.get(sessionId)?.turnEnd !== undefined;
    const opening = running ? undefined : this.openings.settled(sessionId);
    if (opening === undefined) {
      cancel();
    } else {
      // A failed load leaves nothing to cancel, or the session open before it (refused).
      void opening.then(cancel, cancel);
    }
  }

  /**
   * Runs `request` about `sessionId` at once, or, while the session is being loaded or resumed,
   * once that has answered; fails with the open's own error when it failed and left the session
   * closed (one that was refused leaves an open session as it was: the request runs there); a
   * followed session deleted meanwhile answers `-32002` saying so (deleted-sessions.ts).
   */
  private afterOpening<T>(sessionId: string, answer: () => T | Promise<T>): Promise<T> {
    const request = () => {
      this.deleted.refuse(sessionId);
      return answer();
    };
    this.holdWhileCancelling(sessionId);
    const opening = this.openings.settled(sessionId);
    const afterFailure = (error: unknown) =>
      this.openHere(sessionId) === undefined ? Promise.reject(error) : request();
    return opening === undefined
      ? Promise.resolve().then(request)
      : opening.then(request, afterFailure);
  }

  /** ACP v1 session-setup: `session/new`. Session-scoped updates follow the answer, never precede it. */
  async newSession(params: acp.NewSessionRequest, client: Client): Promise<acp.NewSessionResponse> {
    await checkDirectory(params.cwd);
    const model = sessionModel(this.host.resolveModel());
    const session = await createSession(this.host, params.cwd, model.id);
    await startMcpServers(this.host, session, params.mcpServers, this.connection.log);
    const acpSession = new AcpSession(this.sessionContext(client), {
      session,
      model,
      mode: defaultMode(this.host.configOf(session)),
      // The request's folders; the run config's `--add-dir` folders are the host's.
      folders: [...(params.additionalDirectories ?? [])],
      titled: false,
    });
    this.sessions.set(session.id, acpSession);
    await acpSession.probeSandbox();
    announceAfterAnswer(acpSession, this.connection.log);
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
  loadSession(params: acp.LoadSessionRequest, client: Client): Promise<acp.LoadSessionResponse> {
    this.holdWhileCancelling(params.sessionId);
    return this.openings.open(params.sessionId, () => this.load(params, client));
  }

  private async load(
    params: acp.LoadSessionRequest,
    client: Client,
  ): Promise<acp.LoadSessionResponse> {
    this.deleted.refuse(params.sessionId);
    await checkReopen(this.host, this.openHere(params.sessionId), params, "session/load");
    const followed = await this.followElsewhere(params.sessionId, client, params.mcpServers, true);
    if (followed !== undefined) {
      return followed;
    }
    const acpSession = await this.reopen(params, client, params.mcpServers);
    const { events } = await this.host.readEvents(acpSession.id);
    acpSession.replay(events);
    await acpSession.flush();
    await acpSession.probeSandbox();
    announceAfterAnswer(acpSession, this.connection.log);
    return {
      modes: acpSession.modes(),
      configOptions: acpSession.configOptions(),
      ...repairMeta(acpSession.session),
    };
  }

  /** ACP v1 `session/resume`: reopens without replaying anything. */
  resumeSession(
    params: acp.ResumeSessionRequest,
    client: Client,
  ): Promise<acp.ResumeSessionResponse> {
    this.holdWhileCancelling(params.sessionId);
    return this.openings.open(params.sessionId, () => this.resume(params, client));
  }

  private async resume(
    params: acp.ResumeSessionRequest,
    client: Client,
  ): Promise<acp.ResumeSessionResponse> {
    this.deleted.refuse(params.sessionId);
    await checkReopen(this.host, this.openHere(params.sessionId), params, "session/resume");
    const mcpServers = params.mcpServers ?? [];
    const followed = await this.followElsewhere(params.sessionId, client, mcpServers, false);
    if (followed !== undefined) {
      return followed;
    }
    const acpSession = await this.reopen(params, client, mcpServers);
    acpSession.learn((await this.host.readEvents(acpSession.id)).events);
    await acpSession.probeSandbox();
    announceAfterAnswer(acpSession, this.connection.log);
    return {
      modes: acpSession.modes(),
      configOptions: acpSession.configOptions(),
      ...repairMeta(acpSession.session),
    };
  }

  /**
   * While `sessionId`'s prompt ends after a `session/cancel` (handled, or read and not handled yet:
   * the SDK hands a notification to its handler after the requests read with it), holds the
   * requests about the session until that prompt's answer: they then run in the order they came,
   * a load or a new prompt served rather than refused as if the prompt still ran.
   */
  private holdWhileCancelling(sessionId: string): void {
    const turn = this.sessions.get(sessionId)?.turnEnd;
    if (turn?.cancelled === true || (turn && this.connection.cancelRead(sessionId))) {
      this.openings.hold(sessionId, turn.finished);
    }
  }

  /** What this connection has open of `sessionId`, here or followed on another worker. */
  private openHere(sessionId: string): AcpSession | AcpRemoteSession | undefined {
    return this.sessions.get(sessionId) ?? this.remotes.get(sessionId)?.remote;
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
      const onDeleted = () => {
        this.deleted.add(sessionId);
        this.remotes.delete(sessionId);
      };
      const context = this.sessionContext(client);
      const remote = await followElsewhere(context, sessionId, replay, onDeleted);
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

  /** Opens a stored session, its model resolved at its first prompt if not now (setup's `sessionModel`). */
  private reopen(
    params: { sessionId: string; cwd: string; additionalDirectories?: string[] | null },
    client: Client,
    mcpServers: readonly acp.McpServer[],
  ): Promise<AcpSession> {
    const { sessionId } = params;
    return this.exclusively(sessionId, async () => {
      // Read before opening: the folder is checked before anything is written (an unknown id:
      // opening it reports that), and the title is known without reading the log again.
      checkAbsolute(params.cwd);
      const stored = await this.host.readEvents(sessionId).catch(() => undefined);
      checkSessionFolder(stored?.events ?? [], sessionId, params.cwd);
      const session = await openSession(this.host, sessionId);
      const ranWith = { sessionId, model: session.changedModel ?? session.start.model };
      const model = sessionModel(this.host.modelOfResumed(session), ranWith);
      await startMcpServers(this.host, session, mcpServers, this.connection.log);
      const acpSession = new AcpSession(this.sessionContext(client), {
        session,
        model,
        mode: defaultMode(this.host.configOf(session)),
        folders: [...(params.additionalDirectories ?? [])],
        titled: hasTitle(stored?.events ?? []),
      });
      this.sessions.set(sessionId, acpSession);
      return acpSession;
    });
  }

  /** ACP v1 session-list: this home's sessions, newest first, optionally of one cwd. */
  listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    return listPage(this.host, params);
  }

  /** ACP v1 `session/close`: cancels the running prompt, then frees the session. */
  closeSession(sessionId: string): Promise<acp.CloseSessionResponse> {
    return this.afterOpening(sessionId, async () => {
      if (!this.remotes.has(sessionId)) {
        this.opened(sessionId);
      }
      await this.closeOpen(sessionId);
      return {};
    });
  }

  /** ACP v1 session-delete: idempotent; an unknown id succeeds. */
  async deleteSession(sessionId: string): Promise<acp.DeleteSessionResponse> {
    // A session being loaded is deleted after its load answered (or failed).
    await this.openings.settled(sessionId)?.catch(() => undefined);
    await this.closeOpen(sessionId);
    return deleteStoredSession(this.host, sessionId);
  }

  /**
   * ACP v1 session-modes: `session/set_mode` (option-requests.ts). Like every change of settings,
   * answered before the requests about the session read after it run (opening-gate.ts
   * `answerFirst`): a prompt sent after it runs in the new mode, even while bubblewrap is probed.
   */
  setMode(params: acp.SetSessionModeRequest): Promise<acp.SetSessionModeResponse> {
    const { sessionId, modeId } = params;
    const change = () => applyMode(this.opened(sessionId), modeId);
    return this.openings.answerFirst(sessionId, this.afterOpening(sessionId, change));
  }

  /** `session/set_model`, ACP's former unstable model API (option-requests.ts). */
  setModel(params: { sessionId: string; modelId: string }): Promise<Record<string, never>> {
    const { sessionId, modelId } = params;
    const change = () => applyModel(this.opened(sessionId), modelId);
    return this.openings.answerFirst(sessionId, this.afterOpening(sessionId, change));
  }

  /** ACP v1 session-config-options: `session/set_config_option` (option-requests.ts). */
  setConfigOption(
    params: acp.SetSessionConfigOptionRequest,
  ): Promise<acp.SetSessionConfigOptionResponse> {
    const change = () => applyConfigOption(this.host, this.opened(params.sessionId), params);
    return this.openings.answerFirst(params.sessionId, this.afterOpening(params.sessionId, change));
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
      throw sessionNotFound(sessionId, "not open");
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
    const { offered, sendsUsage, extraTools, log } = this.connection;
    return { host: this.host, client, offered: offered(), sendsUsage, extraTools, log };
  }
}
