/**
 * One session served over JSON-RPC: a {@link Session} plus what its app registered (custom tools,
 * permission handler, hooks), the queue of `session.send` prompts, and the forwarding of its
 * events as `session.event` notifications to the connection that owns it.
 *
 * Wire rules kept here (Copilot protocol v3):
 * - every event goes out, ephemeral ones included, in emission order; deltas only when the app
 *   asked for streaming;
 * - `session.idle` goes out once the session has nothing in flight (queue drained), so one idle
 *   answers however many queued sends, as with Copilot; hooks run before it.
 */

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { CompactionResult } from "../agent/compaction.js";
import type { Authorize } from "../agent/tool-calls.js";
import { errorMessage } from "../events/errors.js";
import type {
  EventInput,
  HookType,
  JsonObject,
  JsonValue,
  SessionEvent,
  UserMessageSource,
} from "../events/events.js";
import type { ModelConfiguration } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import { agentSettingsFor, type SessionOptions } from "../session/agent-settings.js";
import type { SessionHost } from "../session/host.js";
import {
  PromptInProgressError,
  type Session,
  type SessionAgentSettings,
} from "../session/session.js";
import type { AnyTool } from "../tools/define-tool.js";
import { PendingToolCalls } from "./external-tools.js";
import { HOOK_TIMEOUT_MS, HookRunner, MAX_AGENT_STOP_BLOCKS } from "./hooks.js";
import { type CreateParams, invalidParams, type SendParams } from "./params.js";
import {
  completedKind,
  createGates,
  PendingPermissions,
  wirePermissionRequest,
} from "./permissions.js";
import { systemPromptWith, withAttachments } from "./prompt-text.js";
import type {
  HooksInvokeParams,
  HooksInvokeResult,
  SessionCreateResult,
  SessionMode,
} from "./protocol.js";

/** The connection a session's notifications and hook calls go to. */
export interface ClientLink {
  notify(method: string, params: object): void;
  /** @throws when the connection closes, `signal` aborts or `timeoutMs` passes first. */
  request(
    method: string,
    params: object,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<unknown>;
}

/** What an app registered for a session in `session.create` / `session.resume`. */
export type SessionConfig = Pick<
  CreateParams,
  "tools" | "systemMessage" | "requestPermission" | "hooks" | "streaming" | "allowAllTools"
>;

interface Job {
  prompt: string;
  autopilot: boolean;
}

export class ServerSession {
  readonly id: string;
  mode: SessionMode;
  private link: ClientLink | undefined;
  private config: SessionConfig = {};
  private model: ModelConfiguration;
  private provider: Provider;
  private readonly permissions = new PendingPermissions();
  private readonly toolCalls: PendingToolCalls;
  private readonly hooks: HookRunner;
  private externalTools: AnyTool[] = [];
  private readonly wrapped = new WeakMap<AnyTool, AnyTool>();
  private authorize: Authorize;
  private readonly queue: Job[] = [];
  private draining: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private heldIdle: SessionEvent | undefined;
  /** `sessionStart` runs before the first prompt after create (`new`) or resume (`resume`). */
  private startSource: "new" | "resume" | undefined;
  private readonly unsubscribe: () => void;
  private closed: Promise<void> | undefined;

  constructor(
    readonly session: Session,
    private readonly host: SessionHost,
    start: { model: ModelConfiguration; mode: SessionMode; source: "new" | "resume" },
    private readonly onClosed: (session: ServerSession) => void,
    /** The server's stderr logger (`ServerContext.log`). */
    private readonly log: (message: string) => void,
  ) {
    this.id = session.id;
    this.mode = start.mode;
    this.model = start.model;
    this.provider = host.provider(start.model);
    this.startSource = start.source;
    const owner = { sessionId: this.id, cwd: session.cwd, emit: session.emit.bind(session) };
    this.toolCalls = new PendingToolCalls(owner);
    this.hooks = new HookRunner({
      ...owner,
      enabled: () => this.config.hooks === true && this.link !== undefined,
      invoke: (hookType, input, signal) => this.invokeHook(hookType, input, signal),
    });
    this.authorize = this.buildAuthorize();
    this.unsubscribe = session.subscribe((event) => this.forward(event));
  }

  /** Attaches the app's connection and registrations (create, resume, or a takeover). */
  attach(link: ClientLink, config: SessionConfig): void {
    this.link = link;
    this.config = config;
    this.externalTools = this.toolCalls.toolsFor(config.tools ?? []);
    this.authorize = this.buildAuthorize();
  }

  /** Whether `link` is the connection this session reports to. */
  ownedBy(link: ClientLink): boolean {
    return this.link === link;
  }

  get modelId(): string {
    return this.model.id;
  }

  /**
   * `session.history.compact`: compacts the history now with the session's model.
   * @throws PromptInProgressError when a prompt is running or queued.
   */
  async compact(instructions: string): Promise<CompactionResult> {
    if (this.draining !== undefined) {
      throw new PromptInProgressError(this.id);
    }
    return this.session.compact(this.settingsFor(false), instructions);
  }

  /** Switches the model for the next prompts. */
  switchModel(model: ModelConfiguration): void {
    this.model = model;
    this.provider = this.host.provider(model);
  }

  /** The `session.create` / `session.resume` answer. */
  describe(): SessionCreateResult {
    return {
      sessionId: this.id,
      workspacePath: this.session.directory,
      startTime: this.session.start.startTime,
      isRemote: false,
      mode: this.mode,
      capabilities: { ui: { elicitation: false } },
      modelState: { modelId: this.model.id },
    };
  }

  /**
   * Queues a prompt; `immediate` goes ahead of other queued prompts.
   * @returns its message id.
   * @throws ResponseError `-32602` once the session is closing (detach, delete, shutdown).
   */
  send(params: SendParams): string {
    if (this.closed !== undefined) {
      throw invalidParams(`session ${this.id} is closing`);
    }
    const job = {
      prompt: withAttachments(params.prompt, params.attachments),
      autopilot: (params.agentMode ?? this.mode) === "autopilot",
    };
    if (params.mode === "immediate") {
      this.queue.unshift(job);
    } else {
      this.queue.push(job);
    }
    this.draining ??= this.drain();
    return randomUUID();
  }

  /** Cancels the running prompt and drops queued ones; resolves once the session is idle. */
  async abort(): Promise<void> {
    this.queue.length = 0;
    this.controller?.abort();
    await this.draining;
  }

  answerTool(requestId: string, answer: Parameters<PendingToolCalls["answer"]>[1]): boolean {
    return this.toolCalls.answer(requestId, answer);
  }

  /** @throws Error for an unknown decision kind. */
  answerPermission(requestId: string, result: { kind: string; feedback?: string | undefined }) {
    return this.permissions.answer(requestId, result);
  }

  /** `session.detach`: cancels what runs, tells the app's `sessionEnd` hook, closes. */
  async detach(): Promise<void> {
    await this.abort();
    await this.hooks.call("sessionEnd", { reason: "user_exit" });
    await this.close();
  }

  /** The connection died: cancels what runs and closes; the log stays consistent. */
  async connectionLost(): Promise<void> {
    this.link = undefined;
    await this.close();
  }

  /** Whether {@link close} has begun (detach, delete, shutdown, a lost connection). */
  get closing(): boolean {
    return this.closed !== undefined;
  }

  /** Cancels, stops forwarding and closes the log. Idempotent. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      await this.abort();
      this.unsubscribe();
      this.link = undefined;
      await this.host.close(this.session);
      this.onClosed(this);
    })();
    return this.closed;
  }

  private async drain(): Promise<void> {
    try {
      // `await` always yields, so `finally` runs after `this.draining` is set.
      for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) {
        await this.runJob(job);
      }
    } finally {
      this.draining = undefined;
      const idle = this.heldIdle;
      this.heldIdle = undefined;
      if (idle !== undefined) {
        this.link?.notify("session.event", { sessionId: this.id, event: idle });
        this.link?.notify("session.lifecycle", {
          type: "session.updated",
          sessionId: this.id,
          metadata: { startTime: this.session.start.startTime, modifiedTime: idle.timestamp },
        });
      }
    }
  }

  /** One send: prompt hooks, the prompt, and `agentStop` follow-ups. Never throws. */
  private async runJob(job: Job): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const { signal } = controller;
    try {
      let text = job.prompt;
      const startSource = this.startSource;
      this.startSource = undefined;
      if (startSource !== undefined) {
        const input = { source: startSource, initialPrompt: text };
        text = await this.hooks.prompt("sessionStart", input, text, signal);
      }
      text = await this.hooks.prompt("userPromptSubmitted", { prompt: text }, text, signal);
      let source: UserMessageSource = "user";
      for (let blocks = 0; ; blocks++) {
        const settings = this.settingsFor(job.autopilot);
        const outcome = await this.session.prompt(settings, text, { signal, source });
        if ("error" in outcome) {
          const input = { error: outcome.error.message, errorContext: "model_call" };
          await this.hooks.call("errorOccurred", { ...input, recoverable: false });
          return;
        }
        if (outcome.stopReason === "cancelled" || signal.aborted) {
          return;
        }
        if (blocks >= MAX_AGENT_STOP_BLOCKS) {
          return;
        }
        const input = {
          stopReason: outcome.stopReason,
          transcriptPath: join(this.session.directory, "events.jsonl"),
          stop_hook_active: blocks > 0,
        };
        const followUp = await this.hooks.agentStop(input, signal);
        if (followUp === undefined || signal.aborted) {
          return;
        }
        text = followUp;
        source = "hook";
      }
    } catch (error) {
      // A bug or a closed log: tell the app (its sendAndWait ends) instead of going quiet.
      const message = `internal error: ${errorMessage(error)}`;
      this.log(`session ${this.id}: ${message}`);
      this.emitSafely({ type: "session.error", data: { errorType: "internal", message } });
      this.emitSafely({ type: "session.idle", data: {} });
    } finally {
      this.controller = undefined;
    }
  }

  /** Emits `event` unless the log cannot take it any more (then there is nobody to tell). */
  private emitSafely(event: EventInput): void {
    try {
      this.session.emit(event);
    } catch {
      // The log is closed: the session is going away.
    }
  }

  private settingsFor(autopilot: boolean): SessionAgentSettings {
    const options: SessionOptions = {
      ...this.host.policy,
      model: this.model,
      provider: this.provider,
      autopilot,
      allowAllTools: this.config.allowAllTools ?? this.host.policy.allowAllTools,
      extraTools: this.externalTools,
    };
    const settings = agentSettingsFor(this.session, options);
    const overridden = new Set(this.externalTools.map((tool) => tool.name));
    const tools = settings.tools.filter(
      (tool) => !overridden.has(tool.name) || this.externalTools.includes(tool),
    );
    return {
      ...settings,
      systemPrompt: systemPromptWith(settings.systemPrompt, this.config.systemMessage),
      tools: tools.map((tool) => this.wrap(tool)),
      authorize: this.authorize,
    };
  }

  private wrap(tool: AnyTool): AnyTool {
    let wrapped = this.wrapped.get(tool);
    if (wrapped === undefined) {
      wrapped = this.hooks.wrapTool(tool);
      this.wrapped.set(tool, wrapped);
    }
    return wrapped;
  }

  /** The permission path: `preToolUse`, then the gate that decision picks (see hooks.ts). */
  private buildAuthorize(): Authorize {
    const gates = createGates({
      session: this.session,
      policy: {
        ...this.host.policy,
        allowAllTools: this.config.allowAllTools ?? this.host.policy.allowAllTools,
      },
      ...(this.config.requestPermission === true ? { ask: this.permissions.ask } : {}),
      skipPermission: new Set(
        (this.config.tools ?? []).filter((tool) => tool.skipPermission).map((tool) => tool.name),
      ),
    });
    // Recorded at the gate, after preToolUse: a question describes the arguments that would run.
    const described =
      (gate: Authorize): Authorize =>
      (request) => {
        this.permissions.calls.set(request.toolCall.toolCallId, {
          tool: request.tool,
          input: request.input,
          arguments: request.toolCall.arguments,
          external: this.externalTools.some((tool) => tool.name === request.tool.name),
        });
        return gate(request);
      };
    return this.hooks.authorize({
      normal: described(gates.normal),
      allowed: described(gates.allowed),
      ask: described(gates.ask),
    });
  }

  /** `hooks.invoke` to the app. @returns its `output`. @throws when it fails or times out. */
  private async invokeHook(
    hookType: HookType,
    input: JsonObject,
    signal: AbortSignal | undefined,
  ): Promise<JsonValue | undefined> {
    const link = this.link;
    if (link === undefined) {
      throw new Error("the app is not connected");
    }
    const params: HooksInvokeParams = { sessionId: this.id, hookType, input };
    const result = await link.request("hooks.invoke", params, signal, HOOK_TIMEOUT_MS);
    return (result as HooksInvokeResult | null)?.output;
  }

  /** Sends one event to the app, held or filtered by the wire rules above. */
  private forward(event: SessionEvent): void {
    if (
      this.config.streaming === false &&
      (event.type === "assistant.message_delta" || event.type === "assistant.reasoning_delta")
    ) {
      return;
    }
    if (event.type === "session.idle") {
      this.heldIdle = event;
      return;
    }
    const wire = this.toWire(event);
    if (event.type === "tool.execution_complete") {
      this.permissions.calls.delete(event.data.toolCallId);
    }
    this.link?.notify("session.event", { sessionId: this.id, event: wire });
  }

  /** Adds the wire-only fields Copilot SDK apps read (see protocol.ts). */
  private toWire(event: SessionEvent): object {
    switch (event.type) {
      case "permission.requested": {
        const details = this.permissions.calls.get(event.data.toolCallId);
        const permissionRequest = wirePermissionRequest(event.data, details, this.session.cwd);
        return { ...event, data: { ...event.data, permissionRequest } };
      }
      case "permission.completed":
        return { ...event, data: { ...event.data, result: { kind: completedKind(event.data) } } };
      default:
        return event;
    }
  }
}
