import * as acp from "@agentclientprotocol/sdk";
import { z } from "zod";
import type { SessionHost } from "../session/host.js";
import type { AnyTool } from "../tools/define-tool.js";
import { type AuthenticationSettings, authMethods } from "./auth-methods.js";
import { authenticate } from "./authentication.js";
import { methodNotFound } from "./errors.js";
import { initializeResponse, understandsUsageUpdates } from "./initialize.js";
import type { AcpSessionRequests } from "./session-requests.js";

/** The former unstable model API (protocol PR #1325 replaced it with a `model` config option). */
const SET_MODEL_METHOD = "session/set_model";
const setModelRequest = z.object({ sessionId: z.string(), modelId: z.string().min(1) });

/** What the ACP agent needs from its host (the `turnloop acp` command, or a test). */
export interface AcpAgentConfig {
  /**
   * The run config and the environment: all that `initialize` reads. Absent when the run config
   * could not be made (then `openHost` throws why, and `initialize` offers no auth methods).
   */
  settings: AuthenticationSettings | undefined;
  /**
   * The session host (the same `events.jsonl` sessions as the CLI's, models, the permission
   * policy), asked for once, on the first request that needs it: making it loads the session
   * stack, which `initialize` never waits for.
   */
  openHost: () => SessionHost | Promise<SessionHost>;
  /** Diagnostics (stderr); never stdout, which carries only protocol messages. */
  log: (line: string) => void;
  /** Tools besides the built-in ones. */
  extraTools?: readonly AnyTool[];
}

/**
 * turnloop's ACP v1 agent: the request handlers of one connection. Built on the SDK 2.x builder
 * API; the SDK validates params (`-32602`) and rejects requests before `initialize` (`-32600`).
 * `initialize` is answered from the run config alone; the requests about sessions are handled by
 * {@link AcpSessionRequests}, whose module (and with it the session stack) is imported on the
 * first of them. Requests run concurrently, so a pending permission in one session never blocks
 * another session's requests.
 */
export class TurnloopAcpAgent {
  readonly app: acp.AgentApp;
  private readonly config: AcpAgentConfig;
  private offered: acp.ClientCapabilities | undefined;
  /** Whether `usage_update`s are sent (see {@link understandsUsageUpdates}). */
  private usageUpdates = true;
  /** The session host, once asked for. */
  private host: Promise<SessionHost> | undefined;
  /** The session requests, once their module is loading. */
  private requests: Promise<AcpSessionRequests> | undefined;
  /** The session requests once loaded (what `session/cancel` reaches synchronously). */
  private loaded: AcpSessionRequests | undefined;
  /** Aborted when the client's input ends: every prompt, running or still to start, is cancelled. */
  private readonly inputEnd = new AbortController();
  /** `session/cancel`s read and not handled yet, by session id ({@link cancelRead}). */
  private readonly cancelsRead = new Map<string, number>();

  constructor(config: AcpAgentConfig) {
    this.config = config;
    const methods = acp.methods.agent;
    const session = () => this.sessionRequests();
    this.app = acp
      .agent({ name: "turnloop" })
      .onRequest(methods.initialize, ({ params }) => this.initialize(params))
      .onRequest(methods.authenticate, async ({ params }) =>
        authenticate(await this.sessionHost(), params.methodId),
      )
      .onRequest(methods.session.new, async ({ params, client }) =>
        (await session()).newSession(params, client),
      )
      .onRequest(methods.session.load, async ({ params, client }) =>
        (await session()).loadSession(params, client),
      )
      .onRequest(methods.session.resume, async ({ params, client }) =>
        (await session()).resumeSession(params, client),
      )
      .onRequest(methods.session.list, async ({ params }) => (await session()).listSessions(params))
      .onRequest(methods.session.close, async ({ params }) =>
        (await session()).closeSession(params.sessionId),
      )
      .onRequest(methods.session.delete, async ({ params }) =>
        (await session()).deleteSession(params.sessionId),
      )
      .onRequest(methods.session.setMode, async ({ params }) => (await session()).setMode(params))
      .onRequest(methods.session.setConfigOption, async ({ params }) =>
        (await session()).setConfigOption(params),
      )
      .onRequest(
        SET_MODEL_METHOD,
        (params) => setModelRequest.parse(params),
        async ({ params }) => (await session()).setModel(params),
      )
      .onRequest(methods.session.prompt, async ({ params, signal }) =>
        (await session()).prompt(
          params.sessionId,
          params.prompt,
          AbortSignal.any([signal, this.inputEnd.signal]),
        ),
      )
      // Any other request, after every handler above declined it (errors.ts).
      .onRequest("*", ({ method }) => {
        throw methodNotFound(method);
      })
      .onNotification(methods.session.cancel, ({ params }) => this.cancel(params.sessionId));
  }

  /**
   * The client's input ended (stdin closed): running prompts are cancelled, and prompts read
   * before the end but not started yet start cancelled, so each is answered `cancelled` with its
   * log ended as a cancel ends it (README: closing stdin cancels). Other requests read before the
   * end are answered as usual (input-end.ts holds the connection open for them).
   */
  inputEnded(): void {
    this.inputEnd.abort();
  }

  /**
   * ACP v1 `session/cancel`. While the session requests' module is still loading, once it has
   * loaded: the requests read before the cancel (a load, a prompt) reach it first.
   */
  private cancel(sessionId: string): void {
    const read = (this.cancelsRead.get(sessionId) ?? 1) - 1;
    if (read > 0) {
      this.cancelsRead.set(sessionId, read);
    } else {
      this.cancelsRead.delete(sessionId);
    }
    if (this.loaded !== undefined) {
      this.loaded.cancel(sessionId);
    } else {
      void this.requests?.then(
        (requests) => requests.cancel(sessionId),
        () => undefined,
      );
    }
  }

  /**
   * A `session/cancel` of `sessionId` was read (framing.ts): until its handler runs, after the
   * requests read with it, those requests see that it is coming (session-requests.ts).
   */
  cancelRead(sessionId: string): void {
    this.cancelsRead.set(sessionId, (this.cancelsRead.get(sessionId) ?? 0) + 1);
  }

  /** Cancels every running prompt and closes every session (the connection has closed). */
  async shutdown(): Promise<void> {
    const requests = await this.requests?.catch(() => undefined);
    await requests?.shutdown();
  }

  /**
   * The client answered a message of ours with an error that has no id: it refused a
   * notification. Only `usage_update` can be new to a client that speaks ACP v1, so no more of
   * those are sent on this connection (one rejection, not one per turn).
   */
  clientRejectedNotification(error: unknown): void {
    if (this.usageUpdates) {
      this.usageUpdates = false;
      this.config.log(
        `turnloop: the client refused a notification (${JSON.stringify(error)}); usage_update is no longer sent`,
      );
    }
  }

  /** ACP v1 initialization: protocol 1, and only the capabilities that work. */
  private initialize(params: acp.InitializeRequest): acp.InitializeResponse {
    this.offered = params.clientCapabilities;
    this.usageUpdates = understandsUsageUpdates(params);
    const { settings } = this.config;
    return initializeResponse(settings === undefined ? [] : authMethods(settings));
  }

  private sessionHost(): Promise<SessionHost> {
    this.host ??= Promise.resolve().then(() => this.config.openHost());
    return this.host;
  }

  private sessionRequests(): Promise<AcpSessionRequests> {
    this.requests ??= this.loadSessionRequests();
    return this.requests;
  }

  private async loadSessionRequests(): Promise<AcpSessionRequests> {
    const [{ AcpSessionRequests }, host] = await Promise.all([
      import("./session-requests.js"),
      this.sessionHost(),
    ]);
    this.loaded = new AcpSessionRequests(host, {
      log: this.config.log,
      extraTools: this.config.extraTools ?? [],
      offered: () => this.offered,
      sendsUsage: () => this.usageUpdates,
      cancelRead: (sessionId) => this.cancelsRead.has(sessionId),
    });
    return this.loaded;
  }
}
