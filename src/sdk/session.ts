/**
 * A session as an app sees it: sends prompts, receives the runtime's events, and answers the
 * runtime's questions (custom tool calls, permission requests, hooks) with the app's handlers.
 */

import type { MessageConnection } from "vscode-jsonrpc";
import { errorMessage } from "../events/errors.js";
import type {
  HookType,
  JsonObject,
  JsonValue,
  SessionEvent,
  SessionEventOf,
} from "../events/events.js";
import type { PermissionDecision, SessionMode } from "../protocol/copilot.js";
import type { WireEvent, WireEventOf, WireEventType } from "../protocol/wire-event.js";
import { inAppNames } from "./copilot-names.js";
import { answerHook, type GuardWatch } from "./hook-answers.js";
import { answerPermission, handlerOf, type PermissionHandlerName } from "./permission-answers.js";
import { PromptWait } from "./prompt-wait.js";
import { sendRequest } from "./requests.js";
import { type Tool, toWireResult } from "./tools.js";
import type {
  HistoryCompactResult,
  MessageOptions,
  PermissionRequest,
  SessionConfig,
  SessionHooks,
  UserInputHandler,
  UserInputRequest,
  UserInputResponse,
} from "./types.js";

/** Default time `sendAndWait` waits for `session.idle` (ms). */
export const DEFAULT_WAIT_MS = 60_000;

type Handler = (event: WireEvent) => void;

/**
 * A session opened by {@link TurnloopClient.createSession} or {@link TurnloopClient.resumeSession}.
 * Requests are the Copilot SDK's `session.*` methods; a refused one rejects with vscode-jsonrpc's
 * `ResponseError` (the server's JSON-RPC code, e.g. `-32602` for bad params, and its message), and
 * every one rejects once the connection has closed, waiting or made after: "the turnloop server
 * connection closed before answering <method>".
 */
export class TurnloopSession {
  private readonly handlers = new Set<Handler>();
  private readonly typedHandlers = new Map<WireEventType, Set<Handler>>();
  /** Per event type, the handlers `dispatch` calls in order; forgotten at every (un)subscribe. */
  private readonly callOrder = new Map<WireEventType, readonly Handler[]>();
  private tools = new Map<string, Tool>();
  private permissionHandlers: Pick<SessionConfig, PermissionHandlerName> = {};
  private hooks: SessionHooks | undefined;
  private userInputHandler: UserInputHandler | undefined;
  /** The causes of failed `preToolUse` guards the app was warned about (hook-answers.ts). */
  private readonly guardWatch: GuardWatch;
  /** Running tool handlers by request id, aborted on `external_tool.completed`. */
  private readonly running = new Map<string, AbortController>();
  private readonly disconnectWaiters = new Set<(error: Error) => void>();
  private disconnected = false;
  private folder = "";
  /**
   * The `session.warning`s sent while the session opened (before the create or resume answer)
   * that no handler took, kept for the handlers the app adds right after ({@link handOver});
   * `undefined` after. Other events of the opening (`session.start`) are `onEvent`'s only. */
  private held: WireEvent[] | undefined = [];

  /**
   * @internal Made by {@link TurnloopClient}, one per session id and connection.
   * @param hookTimeoutMs how long the runtime waits for a hook (ms; protocol/hooks.ts).
   */
  constructor(
    readonly sessionId: string,
    private readonly connection: MessageConnection,
    private readonly config: SessionConfig,
    hookTimeoutMs: number,
  ) {
    this.guardWatch = { warned: new Set(), timeoutMs: hookTimeoutMs };
    this.register(config);
  }

  /** The session's folder (`events.jsonl` is in it). */
  get workspacePath(): string {
    return this.folder;
  }

  /**
   * Calls `handler` for every event of type `type`.
   * @returns a function that unsubscribes.
   */
  on<Type extends WireEventType>(
    type: Type,
    handler: (event: WireEventOf<Type>) => void,
  ): () => void;
  /**
   * Calls `handler` for every event, ephemeral ones and the wire's own (`assistant.idle`)
   * included, in order.
   */
  on(handler: (event: WireEvent) => void): () => void;
  on(typeOrHandler: WireEventType | Handler, typedHandler?: (event: never) => void): () => void {
    const handler = typeof typeOrHandler === "function" ? typeOrHandler : (typedHandler as Handler);
    let set = this.handlers;
    if (typeof typeOrHandler !== "function") {
      set = this.typedHandlers.get(typeOrHandler) ?? new Set();
      this.typedHandlers.set(typeOrHandler, set);
    }
    set.add(handler);
    this.callOrder.clear();
    return () => {
      set.delete(handler);
      this.callOrder.clear();
    };
  }

  /**
   * Sends a prompt; the runtime answers at once and runs it (after queued ones).
   * @returns the send's message id.
   */
  async send(options: MessageOptions | string): Promise<string> {
    const message = typeof options === "string" ? { prompt: options } : options;
    const result = (await this.request("session.send", {
      sessionId: this.sessionId,
      ...message,
    })) as { messageId: string };
    return result.messageId;
  }

  /**
   * Sends a prompt and waits for its end: the `session.idle` after it ran ({@link PromptWait};
   * another client's prompt on the same session neither ends the wait nor gives its answer).
   * @returns the prompt's last `assistant.message`; undefined when there was none, or the prompt
   * was aborted (as the Copilot SDK, it resolves, not rejects) or dropped unrun by an abort.
   * @throws Error with the message of the prompt's `session.error`; a timeout Error after
   * `timeoutMs` (the prompt keeps running: call {@link abort} to stop it); an Error when the
   * connection closes, the session is disconnected ("the session was disconnected before the
   * prompt ended") or the client stops ("the client stopped before the prompt ended") first.
   */
  async sendAndWait(
    options: MessageOptions | string,
    timeoutMs = DEFAULT_WAIT_MS,
  ): Promise<SessionEventOf<"assistant.message"> | undefined> {
    const wait = new PromptWait();
    const unsubscribe = this.on((event) => wait.see(event));
    const onDisconnect = (error: Error) => wait.fail(error);
    this.disconnectWaiters.add(onDisconnect);
    const timer = setTimeout(
      () => wait.fail(new Error(`Timeout after ${timeoutMs} ms waiting for session.idle`)),
      timeoutMs,
    );
    try {
      wait.sent(await this.send(options));
      return await wait.done;
    } finally {
      clearTimeout(timer);
      unsubscribe();
      this.disconnectWaiters.delete(onDisconnect);
    }
  }

  /** Cancels the running prompt and drops queued ones; resolves once the session is idle. */
  async abort(): Promise<void> {
    await this.request("session.abort", { sessionId: this.sessionId });
  }

  /** The session's persisted events, as in its `events.jsonl`. */
  async getMessages(): Promise<SessionEvent[]> {
    const result = (await this.request("session.getMessages", {
      sessionId: this.sessionId,
    })) as { events: SessionEvent[] };
    return result.events;
  }

  /** The mode the next prompt runs in (`session.mode.get`). */
  async getMode(): Promise<SessionMode> {
    return (await this.request("session.mode.get", {
      sessionId: this.sessionId,
    })) as SessionMode;
  }

  /** Sets the mode for the next prompts. */
  async setMode(mode: SessionMode): Promise<void> {
    await this.request("session.mode.set", { sessionId: this.sessionId, mode });
  }

  /** Switches the model (`<provider>:<model>`) for the next prompts. */
  async setModel(modelId: string): Promise<void> {
    await this.request("session.model.switchTo", {
      sessionId: this.sessionId,
      modelId,
    });
  }

  /**
   * Compacts the session's history now (`session.history.compact`, Copilot's method):
   * `instructions` say what the summary should focus on. Resolves with the server's answer;
   * `success: false` (with `error`) when nothing could be compacted.
   * @throws the server's error when a prompt is running.
   */
  async compact(instructions?: string): Promise<HistoryCompactResult> {
    return (await this.request("session.history.compact", {
      sessionId: this.sessionId,
      ...(instructions === undefined ? {} : { customInstructions: instructions }),
    })) as HistoryCompactResult;
  }

  /**
   * Ends this app's use of the session (`session.detach`); it stays on disk for resume. A
   * {@link sendAndWait} still waiting rejects first: "the session was disconnected before the
   * prompt ended" (detaching cancels the running prompt, whose end would read as an abort's).
   */
  async disconnect(): Promise<void> {
    if (this.disconnected) {
      return;
    }
    this.endWaits(new Error("the session was disconnected before the prompt ended"));
    await this.request("session.detach", { sessionId: this.sessionId });
    this.markDisconnected(new Error("the session was disconnected"));
  }

  /** Sends request `method`; {@link sendRequest} says how it fails. */
  private request(method: string, params: object): Promise<unknown> {
    return sendRequest(this.connection, method, params);
  }

  /** @internal Whether `disconnect` (or the connection's end) has closed this object for good. */
  get isDisconnected(): boolean {
    return this.disconnected;
  }

  /** @internal Replaces the handlers (resume on the same client); adds `onEvent`'s. */
  register(config: SessionConfig): void {
    this.tools = new Map((config.tools ?? []).map((tool) => [tool.name, tool]));
    this.permissionHandlers = config;
    this.hooks = config.hooks;
    this.userInputHandler = config.onUserInputRequest;
    if (config.onEvent !== undefined) {
      this.on(config.onEvent);
    }
  }

  /**
   * @internal The session's create or resume answer came, naming its `folder`. Once the app's
   * code right after it has run (`setImmediate`), the warnings held while it opened (an untrusted
   * project's, which the server sends with `session.start`) go to the handlers then added, in
   * order, and no later one is held: an app that took them with `onEvent` does not get them again.
   */
  handOver(folder: string): void {
    this.folder = folder;
    setImmediate(() => {
      const held = this.held ?? [];
      this.held = undefined;
      for (const event of held) {
        this.callHandlers(event);
      }
    });
  }

  /** @internal Runs the app's side of an event, then the event handlers (in the app's names). */
  dispatch(wireEvent: WireEvent): void {
    const event = inAppNames(wireEvent, this.config);
    if (this.disconnected) {
      return;
    }
    if (event.type === "external_tool.requested") {
      // Never rejects: a handler's throw is the tool's error result; a lost answer is dropped.
      void this.runTool(event.data);
    } else if (event.type === "external_tool.completed") {
      this.running.get(event.data.requestId)?.abort();
    } else if (event.type === "permission.requested") {
      const data = event.data as typeof event.data & { permissionRequest?: PermissionRequest };
      const request =
        data.permissionRequest === undefined
          ? undefined
          : { ...data.permissionRequest, requestId: data.requestId };
      const handler =
        request === undefined ? undefined : handlerOf(this.permissionHandlers, request);
      if (handler !== undefined && request !== undefined) {
        // Never rejects: a handler's throw answers `user-not-available` (permission-answers.ts).
        const send = (result: PermissionDecision) => this.sendDecision(request.requestId, result);
        void answerPermission(handler, request, this.sessionId, send);
      }
    }
    const warning = event.type === "session.warning";
    if (warning && this.held !== undefined && this.handlersOf(event.type).length === 0) {
      this.held.push(event);
      return;
    }
    this.callHandlers(event);
  }

  /** The handlers of events of `type`, in the order they are called. */
  private handlersOf(type: WireEventType): readonly Handler[] {
    // One array per event type, not two spreads per event (one event per streamed delta).
    let handlers = this.callOrder.get(type);
    if (handlers === undefined) {
      handlers = [...(this.typedHandlers.get(type) ?? []), ...this.handlers];
      this.callOrder.set(type, handlers);
    }
    return handlers;
  }

  private callHandlers(event: WireEvent): void {
    if (this.disconnected) {
      return;
    }
    for (const handler of this.handlersOf(event.type)) {
      try {
        handler(event);
      } catch {
        // An app's handler must not stop the others or the protocol.
      }
    }
  }

  /** @internal Answers `hooks.invoke` (hook-answers.ts says how a failing handler is answered). */
  invokeHook(hookType: HookType, input: JsonObject): Promise<{ output?: JsonValue }> {
    return answerHook(this.hooks, hookType, input, this.sessionId, this.guardWatch);
  }

  /** @internal `userInput.request`'s answer. @throws the handler's Error, or that it has none. */
  async answerUserInput(request: UserInputRequest): Promise<UserInputResponse> {
    if (this.userInputHandler === undefined) {
      throw new Error("this app has no onUserInputRequest handler for the session");
    }
    return await this.userInputHandler(request, { sessionId: this.sessionId });
  }

  /** @internal The connection closed or the session was detached. */
  markDisconnected(error: Error): void {
    this.disconnected = true;
    for (const controller of this.running.values()) {
      controller.abort();
    }
    this.endWaits(error);
  }

  /** @internal Rejects every {@link sendAndWait} still waiting with `error` (`client.stop()`). */
  endWaits(error: Error): void {
    for (const reject of this.disconnectWaiters) {
      reject(error);
    }
    this.disconnectWaiters.clear();
  }

  private async runTool(data: SessionEventOf<"external_tool.requested">["data"]): Promise<void> {
    const tool = this.tools.get(data.toolName);
    if (tool === undefined) {
      return; // Another client may run it.
    }
    const controller = new AbortController();
    this.running.set(data.requestId, controller);
    let answer: object;
    try {
      const value = await tool.handler(data.arguments, {
        sessionId: this.sessionId,
        toolCallId: data.toolCallId,
        toolName: data.toolName,
        arguments: data.arguments,
        signal: controller.signal,
      });
      answer = { result: toWireResult(value) };
    } catch (error) {
      answer = { error: errorMessage(error) };
    } finally {
      this.running.delete(data.requestId);
    }
    if (controller.signal.aborted || this.disconnected) {
      return;
    }
    await this.connection
      .sendRequest("session.tools.handlePendingToolCall", {
        sessionId: this.sessionId,
        requestId: data.requestId,
        ...answer,
      })
      .catch(() => undefined);
  }

  /** Sends `result`; the runtime's refusal as its message, undefined when it took the answer. */
  private async sendDecision(
    requestId: string,
    result: PermissionDecision,
  ): Promise<string | undefined> {
    if (this.disconnected) {
      return undefined;
    }
    try {
      await this.request("session.permissions.handlePendingPermissionRequest", {
        sessionId: this.sessionId,
        requestId,
        result,
      });
      return undefined;
    } catch (error) {
      // A closed connection has no one left to answer to.
      return this.disconnected ? undefined : errorMessage(error);
    }
  }
}
