/**
 * `TurnloopClient`: starts (or connects to) a turnloop server and opens sessions on it. The SDK
 * is only a transport: the loop runs in the server, which streams the session's events back.
 *
 * ```ts
 * const client = new TurnloopClient({ cliArgs: ["--model", "anthropic:claude-sonnet-4-5"] });
 * const session = await client.createSession({ onPermissionRequest: approveAll });
 * session.on("assistant.message_delta", (event) => process.stdout.write(event.data.deltaContent));
 * const reply = await session.sendAndWait({ prompt: "What is in this folder?" });
 * await client.stop();
 * ```
 */

import { randomUUID } from "node:crypto";
import {
  createMessageConnection,
  type MessageConnection,
  ResponseError,
} from "vscode-jsonrpc/node.js";
import { errorMessage } from "../events/errors.js";
import type { HookType, JsonObject } from "../events/events.js";
import {
  PROTOCOL_VERSION,
  ServerToClient,
  type SessionCreateResult,
  type SessionLifecycleNotification,
  type SessionListEntry,
} from "../protocol/copilot.js";
import { hookTimeoutMs } from "../protocol/hooks.js";
import type { WireEvent } from "../protocol/wire-event.js";
import { checkSessionConfig, checkWireSettings } from "./config-check.js";
import { copilotWireSettings } from "./copilot-names.js";
import { closedBeforeAnswering, connectionEnded } from "./requests.js";
import { TurnloopSession } from "./session.js";
import { declaration } from "./tools.js";
import { connectTcp, defaultCliPath, spawnServer, type Transport } from "./transport.js";
import type {
  ResumeSessionConfig,
  SessionConfig,
  TurnloopClientOptions,
  UserInputRequest,
} from "./types.js";

/** Time a spawned server gets to exit after `stop` before it is killed (ms). */
const STOP_GRACE_MS = 5_000;
/** How long a failed call waits for a spawned server to exit, for its last stderr (milliseconds). */
const SERVER_EXIT_BOUND_MS = 2_000;

/**
 * One connection to a turnloop server (`turnloop --headless`): spawned over stdio (the default) or
 * reached on a TCP port, started by the first call that needs it. Methods are the core of the
 * Copilot SDK protocol (version 3, `PROTOCOL_VERSION`; the `@github/copilot-sdk` 1.0.14
 * `CopilotClient`'s requests); a failed call rejects with an `Error` carrying the server's message
 * (and the end of its stderr when it died).
 */
export class TurnloopClient {
  private connection: MessageConnection | undefined;
  private transport: Transport | undefined;
  private starting: Promise<void> | undefined;
  private readonly sessions = new Map<string, TurnloopSession>();
  private readonly lifecycleHandlers = new Set<(event: SessionLifecycleNotification) => void>();

  /** Connects nothing yet: the first call that needs the server starts it ({@link start}). */
  constructor(private readonly options: TurnloopClientOptions = {}) {}

  /**
   * Starts the server (or connects to it) and checks the protocol version. Called by
   * `createSession` / `resumeSession` when needed.
   * @throws Error when the server cannot be started or reached, refuses the token, or speaks
   * another protocol version.
   */
  start(): Promise<void> {
    this.starting ??= this.connect().catch(async (error: unknown) => {
      this.starting = undefined;
      await this.dispose();
      throw error;
    });
    return this.starting;
  }

  /**
   * Opens a new session.
   * @throws TypeError, before the session is asked for, naming a setting of the wrong type or an
   * unknown one (config-check.ts: `createSession: model must be a string, not 3`, `createSession: unknown
   * setting "modle" (did you mean "model"?)`); Error (the server's message) for a config the
   * server refuses.
   */
  async createSession(config: SessionConfig = {}): Promise<TurnloopSession> {
    checkSessionConfig("createSession", config);
    // Named here, as the Copilot SDK does, so the events sent before the answer find the session.
    const params = { ...this.wireConfig(config), sessionId: config.sessionId ?? randomUUID() };
    const connection = await this.checkedWhileConnecting("createSession", params);
    return this.open(connection, "session.create", params, config);
  }

  /**
   * Reopens a session from its log with new handlers; the events so far are in `getMessages`.
   * It works in its own folder: a `workingDirectory` naming another is refused. With
   * `continuePendingWork: true`, the questions left open are asked again through the new handlers.
   * @throws TypeError naming a setting of the wrong type or an unknown one, as `createSession`;
   * Error when there is no such session, or `workingDirectory` is not its folder.
   */
  async resumeSession(
    sessionId: string,
    config: ResumeSessionConfig = {},
  ): Promise<TurnloopSession> {
    checkSessionConfig("resumeSession", config);
    const { workingDirectory, ...wire } = this.wireConfig(config);
    const params = {
      ...wire,
      // Only the app's own: the client's cwd is where new sessions work, not this one.
      ...(config.workingDirectory === undefined ? {} : { workingDirectory }),
      sessionId,
    };
    const connection = await this.checkedWhileConnecting("resumeSession", params);
    return this.open(connection, "session.resume", params, config);
  }

  /**
   * Every session in the server's store (its session folders, or its PostgreSQL database), newest
   * first; `cwd` keeps those that work in that folder. Times are ISO-8601 strings; a damaged log is
   * listed with `problem` saying why it has no prompt or model.
   */
  async listSessions(filter?: { cwd?: string }): Promise<SessionListEntry[]> {
    const connection = await this.connected();
    const result = (await this.call(connection, "session.list", filter ? { filter } : {})) as {
      sessions: SessionListEntry[];
    };
    return result.sessions;
  }

  /**
   * Deletes a session from the server's store (its folder, or its rows in PostgreSQL); this
   * client's object for it is disconnected.
   * @throws Error when there is no such session, or the store could not delete it.
   */
  async deleteSession(sessionId: string): Promise<void> {
    const connection = await this.connected();
    const result = (await this.call(connection, "session.delete", { sessionId })) as {
      success: boolean;
      error?: string;
    };
    this.sessions.get(sessionId)?.markDisconnected(new Error("the session was deleted"));
    this.sessions.delete(sessionId);
    if (!result.success) {
      throw new Error(`cannot delete session ${sessionId}: ${result.error ?? "unknown error"}`);
    }
  }

  /** The server's model(s), Copilot `ModelInfo` shaped. */
  async listModels(): Promise<Array<{ id: string; name: string }>> {
    const connection = await this.connected();
    const result = (await this.call(connection, "models.list", {})) as {
      models: Array<{ id: string; name: string }>;
    };
    return result.models;
  }

  /**
   * Checks the server answers: `message` comes back as `pong: <message>`, with the protocol
   * version it speaks (3).
   */
  async ping(message?: string): Promise<{ message: string; protocolVersion: number }> {
    const connection = await this.connected();
    return (await this.call(connection, "ping", message === undefined ? {} : { message })) as {
      message: string;
      protocolVersion: number;
    };
  }

  /** `session.lifecycle` notifications (created, updated, deleted). @returns unsubscribe. */
  onLifecycle(handler: (event: SessionLifecycleNotification) => void): () => void {
    this.lifecycleHandlers.add(handler);
    return () => this.lifecycleHandlers.delete(handler);
  }

  /**
   * Detaches every session, shuts a spawned server down (`runtime.shutdown`; its sessions stay
   * on disk for resume) and closes the connection. Never throws.
   */
  async stop(): Promise<void> {
    const connection = this.connection;
    if (connection !== undefined) {
      for (const session of this.sessions.values()) {
        session.endWaits(new Error("the client stopped before the prompt ended"));
        await session.disconnect().catch(() => undefined);
      }
      if (this.transport?.owned === true) {
        await connection.sendRequest("runtime.shutdown", {}).catch(() => undefined);
      }
    }
    await this.dispose();
  }

  private async connect(): Promise<void> {
    const { options } = this;
    const transport =
      options.port === undefined
        ? await spawnServer({
            cliPath: options.cliPath ?? defaultCliPath(),
            args: options.cliArgs ?? [],
            cwd: options.cwd ?? process.cwd(),
            env: options.env ?? process.env,
            ...(options.onStderr === undefined ? {} : { onStderr: options.onStderr }),
          })
        : await connectTcp(options.host ?? "127.0.0.1", options.port);
    this.transport = transport;
    const connection = createMessageConnection(transport.reader, transport.writer, undefined, {
      messageStrategy: transport.reader.strategy,
    });
    this.connection = connection;
    const sessionEvent = (params: { sessionId: string; event: WireEvent }) =>
      this.sessions.get(params.sessionId)?.dispatch(params.event);
    // One per streamed delta: straight from the reader when nothing is queued before it.
    transport.reader.handleDirectly(ServerToClient.sessionEvent, (params) =>
      sessionEvent(params as { sessionId: string; event: WireEvent }),
    );
    connection.onNotification(ServerToClient.sessionEvent, sessionEvent);
    connection.onNotification(
      ServerToClient.sessionLifecycle,
      (params: SessionLifecycleNotification) => {
        for (const handler of this.lifecycleHandlers) {
          handler(params);
        }
      },
    );
    connection.onRequest(
      ServerToClient.hooksInvoke,
      (params: { sessionId: string; hookType: HookType; input: JsonObject }) =>
        this.sessions.get(params.sessionId)?.invokeHook(params.hookType, params.input) ?? {},
    );
    connection.onRequest(
      ServerToClient.userInputRequest,
      (params: { sessionId: string } & UserInputRequest) => {
        const { sessionId, ...request } = params;
        const session = this.sessions.get(sessionId);
        if (session === undefined) {
          throw new Error(`no session ${sessionId} in this client`);
        }
        return session.answerUserInput(request);
      },
    );
    connection.onClose(() => this.connectionClosed(connection));
    connection.listen();
    const result = (await this.call(connection, "connect", {
      ...(options.connectionToken === undefined ? {} : { token: options.connectionToken }),
    })) as { protocolVersion?: number };
    transport.started();
    if (result.protocolVersion !== PROTOCOL_VERSION) {
      throw new Error(
        `turnloop server speaks protocol ${result.protocolVersion}; this SDK speaks ${PROTOCOL_VERSION}`,
      );
    }
  }

  /**
   * Checks a session's settings (config-check.ts `checkWireSettings`, which loads zod the first
   * time) while the server starts, so the first `createSession` does not wait for one after the
   * other; nothing of the session is sent before both are done.
   * @throws the settings' TypeError, or the start's Error, whichever comes first.
   */
  private async checkedWhileConnecting(
    call: "createSession" | "resumeSession",
    params: Record<string, unknown>,
  ): Promise<MessageConnection> {
    const [connection] = await Promise.all([this.connected(), checkWireSettings(call, params)]);
    return connection;
  }

  private async connected(): Promise<MessageConnection> {
    await this.start();
    if (this.connection === undefined) {
      throw new Error("the turnloop server connection is closed");
    }
    return this.connection;
  }

  /**
   * Sends a request; errors carry the server's message (and its stderr when it died). A request
   * still unanswered when the connection closes (the server exited or was killed) rejects with
   * "the turnloop server connection closed before answering <method>", followed by
   * "\nserver stderr: <its last words>" when this client spawned the server and it wrote any
   * (a server that refused its settings at start says why there).
   */
  private async call(connection: MessageConnection, method: string, params: object) {
    try {
      return await connection.sendRequest(method, params);
    } catch (error) {
      if (connectionEnded(error)) {
        throw await this.withServerStderr(closedBeforeAnswering(method).message);
      }
      if (error instanceof ResponseError) {
        throw new Error(error.message);
      }
      throw await this.withServerStderr(errorMessage(error));
    }
  }

  /** `detail`, with the spawned server's last stderr once it has exited (waited for ≤ 2 s). */
  private async withServerStderr(detail: string): Promise<Error> {
    const transport = this.transport;
    await transport?.exited(SERVER_EXIT_BOUND_MS);
    const stderr = transport?.stderrTail().trim();
    return new Error(stderr ? `${detail}\nserver stderr: ${stderr}` : detail);
  }

  private wireConfig(
    config: SessionConfig,
  ): { workingDirectory?: string } & Record<string, unknown> {
    const {
      tools,
      onPermissionRequest,
      onSandboxBypassRequest,
      hooks,
      onEvent: _onEvent,
      ...rest
    } = config;
    const { sessionId: _sessionId, ...settings } = rest;
    // A server this client spawns works in `cwd` unless `cliArgs` has `--cwd`: its own folder is
    // the default. One listening on a port works in its own `--cwd` unless this client names a
    // `cwd`, as the Copilot SDK sends no `workingDirectory` the app did not give.
    const clientFolder = this.options.port === undefined ? undefined : this.options.cwd;
    const workingDirectory = config.workingDirectory ?? clientFolder;
    return {
      ...copilotWireSettings(settings),
      // The server follows Copilot (no `streaming: true`, no deltas); this SDK streams by default.
      streaming: config.streaming ?? true,
      ...(workingDirectory === undefined ? {} : { workingDirectory }),
      ...(tools === undefined ? {} : { tools: tools.map(declaration) }),
      requestPermission: onPermissionRequest !== undefined,
      requestSandboxBypass: onSandboxBypassRequest !== undefined,
      hooks: hooks !== undefined && Object.values(hooks).some(Boolean),
    };
  }

  /**
   * Sends `method` (`session.create` / `session.resume` with `params`) with the session's object
   * already listening, as the Copilot SDK does: `config.onEvent` receives the events sent while
   * the session opens, and the warnings no handler took are held for the handlers the app adds
   * right after (session.ts `handOver`). A live object of the session takes the new handlers; a
   * disconnected one stays closed (its `on` handlers and waiters belong to the app's old use) and
   * a fresh object is made.
   */
  private async open(
    connection: MessageConnection,
    method: "session.create" | "session.resume",
    params: { sessionId: string } & Record<string, unknown>,
    config: SessionConfig,
  ): Promise<TurnloopSession> {
    const { sessionId } = params;
    const existing = this.sessions.get(sessionId);
    if (existing !== undefined && !existing.isDisconnected) {
      await this.call(connection, method, params);
      existing.register(config);
      return existing;
    }
    // The server this client spawns reads its wait from the environment it is given.
    const { env = process.env } = this.options;
    const session = new TurnloopSession(sessionId, connection, config, hookTimeoutMs(env));
    this.sessions.set(sessionId, session);
    try {
      const result = (await this.call(connection, method, params)) as SessionCreateResult;
      session.handOver(result.workspacePath);
      return session;
    } catch (error) {
      this.sessions.delete(sessionId);
      throw error;
    }
  }

  private connectionClosed(connection: MessageConnection): void {
    if (this.connection !== connection) {
      return;
    }
    const error = new Error("the turnloop server connection closed");
    for (const session of this.sessions.values()) {
      session.markDisconnected(error);
    }
    this.sessions.clear();
    this.connection = undefined;
    this.starting = undefined;
    // vscode-jsonrpc rejects the requests still waiting for an answer on dispose, not on close:
    // without it, a call in flight when the server dies would never settle.
    connection.dispose();
  }

  private async dispose(): Promise<void> {
    const { connection, transport } = this;
    this.connection = undefined;
    this.transport = undefined;
    this.starting = undefined;
    for (const session of this.sessions.values()) {
      session.markDisconnected(new Error("the client stopped"));
    }
    this.sessions.clear();
    connection?.dispose();
    await transport?.close(STOP_GRACE_MS);
  }
}
