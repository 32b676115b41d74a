/**
 * One session served over JSON-RPC: a {@link Session} plus what its app registered (custom tools,
 * permission handler, hooks), the queue of `session.send` prompts (send-queue.ts), and the
 * forwarding of its events as `session.event` notifications to the connections attached to it.
 *
 * Wire rules kept here (Copilot protocol v3):
 * - every event goes out to every attached app (see session-clients.ts), ephemeral ones
 *   included, in emission order; deltas only to apps that asked for streaming;
 * - `session.idle` goes out once the session has nothing in flight (queue drained, send-queue.ts),
 *   so one idle answers however many queued sends, as with Copilot; hooks run before it (another
 *   process's prompt's idle, idle-lease.ts, at once).
 */

import type { CompactionResult } from "../agent/compaction.js";
import type { Authorize } from "../agent/tool-calls.js";
import { cancelReason, errorMessage } from "../events/errors.js";
import type { EventInput, SessionEvent } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { ModelConfiguration } from "../llm/models.js";
import type { SessionMode } from "../protocol/copilot.js";
import { hookTimeoutMs } from "../protocol/hooks.js";
import type { PermissionCallbacks } from "../session/agent-settings.js";
import type { SessionHost } from "../session/host.js";
import { FOLLOWED_LIVE_TYPES } from "../session/live-events.js";
import {
  PromptInProgressError,
  type Session,
  type SessionAgentSettings,
} from "../session/session.js";
import type { AnyTool } from "../tools/define-tool.js";
import { askUserTools } from "./ask-user.js";
import type { ClientLink } from "./client-link.js";
import { addDroppedToAbort, recordDroppedPrompts } from "./dropped-prompts.js";
import { PendingToolCalls } from "./external-tools.js";
import { HookRunner } from "./hooks.js";
import { invalidParams, type SendParams } from "./params.js";
import { holdForResume } from "./pending-work.js";
import { PendingPermissions, permissionPath, sandboxCallbacks } from "./permissions.js";
import { type Job, jobOf, type RemotePrompt, type SendJobContext } from "./send-job.js";
import { SendQueue } from "./send-queue.js";
import { SessionChoices, type SessionStart } from "./session-choices.js";
import { SessionClients } from "./session-clients.js";
import { promptSettings, requestProvider, type SessionConfig } from "./session-settings.js";
import { recordShutdown, type ShutdownCause } from "./shutdown-metrics.js";
import { UsageBeforeReply } from "./usage-order.js";
import { type CurrentModel, modelNamesOnWire, usageInfo } from "./wire-events.js";

export class ServerSession {
  readonly id: string;
  /** Model, effort and mode of the next prompts. */
  readonly choices: SessionChoices;
  readonly clients: SessionClients;
  /** The attached apps' registrations as one (see {@link SessionClients.config}). */
  private config: SessionConfig = {};
  readonly permissions = new PendingPermissions();
  readonly toolCalls: PendingToolCalls;
  /** The last app went away while work waited for an app: kept for a resume (pending-work.ts). */
  heldForResume = false;
  private readonly hooks: HookRunner;
  private externalTools: AnyTool[] = [];
  private authorize: Authorize;
  private readonly sends: SendQueue;
  /** `sessionStart` runs before the first prompt after create (`new`) or resume (`resume`). */
  private startSource: "new" | "resume" | undefined;
  private readonly unsubscribe: () => void;
  /** A reply's `assistant.message` held until its usage was sent (Copilot's order). */
  private readonly usageOrder = new UsageBeforeReply<[SessionEvent, object]>();
  private closed: Promise<void> | undefined;
  /** Prompts refused: the last app detached (one queued after its abort would run). */
  private ending = false;

  constructor(
    readonly session: Session,
    private readonly host: SessionHost,
    start: SessionStart,
    private readonly onClosed: (session: ServerSession) => void,
    /** The server's stderr logger (`ServerContext.log`). */
    private readonly log: (message: string) => void,
  ) {
    this.id = session.id;
    this.clients = new SessionClients(() => this.registrationsChanged());
    this.choices = new SessionChoices(host, start.model, start.mode);
    this.startSource = start.source;
    const owner = { sessionId: this.id, cwd: session.cwd, emit: session.emit.bind(session) };
    this.toolCalls = new PendingToolCalls(owner);
    const hookTimeout = hookTimeoutMs(host.env);
    this.hooks = new HookRunner({
      ...owner,
      enabled: () => this.clients.registeredFor("hooks") !== undefined,
      invoke: (hookType, input, signal) =>
        this.clients.invokeHook(this.id, hookType, input, signal, hookTimeout),
    });
    this.authorize = this.buildAuthorize();
    const context: SendJobContext = {
      session,
      hooks: this.hooks,
      settingsFor: (job, signal) => this.settingsFor(job, signal),
      log: (message) => this.log(`session ${this.id}: ${message}`),
      emitSafely: (event) => this.emitSafely(event),
      takeStartSource: () => {
        const source = this.startSource;
        this.startSource = undefined;
        return source;
      },
    };
    this.sends = new SendQueue({
      context,
      queueChanged: () => this.queueChanged(),
      // After the events recorded before it (hooks' too), once told (session/held-delivery.ts).
      sendIdle: (idle) =>
        session.journal.tellInOrder(idle, (event) =>
          this.clients.sendIdle(this.id, session.start.startTime, event),
        ),
    });
    this.unsubscribe = session.subscribe((event) => this.forward(event));
  }

  /** Attaches an app's connection and registrations (create, resume, a second client). */
  attach(link: ClientLink, config: SessionConfig): void {
    this.clients.attach(link, config);
    this.registrationsChanged();
  }

  /**
   * Sends `input` to the attached apps as an ephemeral event (`ephemeral: true`, `parentId` the
   * last stored event's), never stored: `session.log {ephemeral: true}` (the SDK's `LogRequest`:
   * "not persisted to the session event log on disk"); after the events recorded before it, once
   * told (session/held-delivery.ts).
   * @returns the event sent.
   */
  announce(input: EventInput): SessionEvent {
    const { journal } = this.session;
    const event: SessionEvent = { ...journal.envelope(input), ephemeral: true };
    journal.handOn(event, true);
    return event;
  }

  /** Whether `link` is one of the connections this session reports to. */
  serves(link: ClientLink): boolean {
    return this.clients.has(link);
  }

  /** Whether `link` is attached and so is another app (then a detach leaves the session open). */
  othersAttachedThan(link: ClientLink): boolean {
    return this.clients.has(link) && this.clients.count > 1;
  }

  /** Recomputes what the apps registered; what only a departed app could answer is settled. */
  private registrationsChanged(): void {
    this.config = this.clients.config();
    this.externalTools = this.toolCalls.toolsFor(this.config.tools ?? []);
    this.authorize = this.buildAuthorize();
    this.toolCalls.abandonUnregistered(new Set(this.externalTools.map((tool) => tool.name)));
    this.permissions.answerUnavailable(this.config);
  }

  /** `session.name.set`: the app's name for the session while it is open here. */
  name: string | undefined;

  get modelId(): string {
    return this.choices.modelId;
  }

  /**
   * `session.history.compact`: compacts the history now with the session's model.
   * @throws PromptInProgressError when a prompt is running or queued.
   */
  async compact(instructions: string): Promise<CompactionResult> {
    if (this.sends.running) {
      throw new PromptInProgressError(this.id);
    }
    // The prompt's own settings (model, tools, system prompt) but no send's text or headers.
    const job: Job = { prompt: "", mode: this.choices.mode };
    const settings = await this.settingsFor(job, new AbortController().signal);
    return this.session.compact(settings, instructions);
  }

  get mode(): SessionMode {
    return this.choices.mode;
  }

  /** Sets the mode for the next prompts; a change is recorded as `session.mode_changed`. */
  setMode(mode: SessionMode): void {
    this.emitSafely(this.choices.setMode(mode));
  }

  /** Switches model and reasoning effort for the next prompts, recorded as `session.model_change`. */
  switchModel(model: ModelConfiguration, reasoningEffort?: string): void {
    this.emitSafely(this.choices.switchModel(model, reasoningEffort));
  }

  /** The model and effort of the next prompts and the folder, for the events that report them. */
  currentModel(): CurrentModel {
    const { modelId, reasoningEffort } = this.choices;
    return { id: modelId, reasoningEffort, cwd: this.session.cwd };
  }

  /**
   * Queues a prompt; `immediate` goes ahead of other queued prompts. `remote`: a face on another
   * worker's prompt's id, blocks and refusal (issue 22; send-job.ts `Job`). @returns its message id.
   * @throws ResponseError `-32602` once the session is closing (detach, delete, shutdown), or
   *   naming why its model cannot run here (a resumed session's: session-choices.ts).
   */
  send(params: SendParams, remote?: RemotePrompt): string {
    if (this.closed !== undefined || this.ending) {
      throw invalidParams(`session ${this.id} is closing`);
    }
    this.choices.refuseUnrunnable("session.send", "Nothing was sent or stored.");
    const messageId = remote?.promptId ?? randomUUID();
    const job = { ...jobOf(params, this.choices.mode, remote), messageId };
    this.sends.add(job, params.mode === "immediate");
    return messageId;
  }

  /** Cancels the running prompt (`by`: the `abort` event's "cancelled by <by>"; absent: the user's),
   * drops queued ones (dropped-prompts.ts); resolves once it ended. One sent after runs next. */
  async abort(by?: string): Promise<void> {
    const dropped = this.sends.takeWaiting();
    const unrecorded = addDroppedToAbort(this.session, this.closing || this.ending ? [] : dropped);
    await this.sends.cancelRunning(cancelReason(by));
    if (!this.closing && !this.ending) {
      await recordDroppedPrompts(this.session, unrecorded(), this.log);
    }
  }

  /** @throws Error for an unknown decision kind. */
  answerPermission(requestId: string, result: { kind: string; feedback?: string | undefined }) {
    return this.permissions.answer(requestId, result);
  }

  /**
   * `session.detach` from `link`: while other apps are attached, only `link` and its tools go;
   * otherwise cancels what runs, tells the app's `sessionEnd` hook and closes.
   * @returns whether the session closed.
   */
  async detach(link: ClientLink, cause?: ShutdownCause): Promise<boolean> {
    if (this.othersAttachedThan(link)) {
      this.clients.remove(link, this.id);
      this.registrationsChanged();
      return false;
    }
    this.ending = true;
    await this.abort("the app leaving the session (session.detach)");
    await this.hooks.call("sessionEnd", { reason: "user_exit" });
    await this.close(cause);
    return true;
  }

  /**
   * The connection `link` died: it and its tools go; when it was the last app, cancels what runs
   * and closes (the log stays consistent), unless work waits for an app (a call of its tool, a
   * permission question): that is kept open for a resume (Copilot's pending work).
   */
  async connectionLost(link: ClientLink): Promise<void> {
    if (this.clients.remove(link, this.id)) {
      this.registrationsChanged();
      return;
    }
    this.heldForResume = holdForResume(this, this.log);
    if (!this.heldForResume) {
      await this.close();
    }
  }

  /** Whether a prompt runs (or waits for an app) or is queued. */
  get running(): boolean {
    return this.sends.running;
  }

  /** Whether {@link close} has begun (detach, delete, shutdown, a lost connection). */
  get closing(): boolean {
    return this.closed !== undefined;
  }

  /**
   * Cancels, records `session.shutdown`, stops forwarding and closes the log. Idempotent.
   * `closing`: why, as the `abort` event's "cancelled by <closing>" says it.
   */
  close(
    cause: ShutdownCause = { shutdownType: "routine" },
    closing = "the session closing (its app went away, or the server stopped)",
  ): Promise<void> {
    this.closed ??= (async () => {
      await this.abort(closing);
      await this.sends.drained(); // sends are refused now: it ends with the cancelled prompt
      await recordShutdown(this.session, cause, this.modelId, this.log);
      this.unsubscribe();
      this.clients.clear();
      await this.host.close(this.session).catch(sayOnStderr);
      this.onClosed(this);
    })();
    return this.closed;
  }

  /** Emits `event` (if any) unless the log cannot take it any more (then nobody is told). */
  private emitSafely(event: EventInput | undefined): void {
    if (event === undefined) {
      return;
    }
    try {
      this.session.emit(event);
    } catch {
      // The log is closed: the session is going away.
    }
  }

  private async settingsFor(job: Job, signal: AbortSignal): Promise<SessionAgentSettings> {
    // The gate comes from buildAuthorize (hooks first); the host's is not used here.
    const { host, session } = this;
    const hostOfSession = { sandbox: host.sandboxOf(session), config: host.configOf(session) };
    await this.permissions.prepare(hostOfSession, job.mode, this.config.sandbox);
    const settings = this.host.agentSettings(this.session, this.choices.model, {
      ...sandboxCallbacks(this.config, this.permissions.ask, this.permissions.mode),
      provider: requestProvider(
        this.choices.provider,
        this.config,
        job.requestHeaders,
        this.choices.reasoningEffort,
      ),
      autopilot: job.mode === "autopilot",
      extraTools: [
        ...this.externalTools,
        ...askUserTools(
          this.config.requestUserInput,
          this.clients.registeredFor("requestUserInput"),
          this.id,
        ),
      ],
    });
    return promptSettings(settings, {
      sessionId: this.id,
      config: this.config,
      link: this.clients.primary,
      mode: job.mode,
      externalTools: this.externalTools,
      hooks: this.hooks,
      authorize: this.authorize,
      signal,
    });
  }

  /** Tells the app that the prompts waiting behind the running one changed (ephemeral). */
  private queueChanged(): void {
    this.emitSafely({ type: "pending_messages.modified", data: {} });
  }

  /** The permission path: `preToolUse`, then the gate that decision picks (see hooks.ts). */
  private buildAuthorize(): Authorize {
    const { config, permissions, hooks, externalTools } = this;
    const gateOf = (callbacks: PermissionCallbacks) =>
      this.host.permissionGate(this.session, callbacks);
    return permissionPath({ gateOf, config, permissions, hooks, externalTools });
  }

  /** Sends one event to the app, held or filtered by the wire rules above. */
  private forward(event: SessionEvent): void {
    if (event.type === "session.idle") {
      for (const [held, heldWire] of this.usageOrder.flush()) {
        this.clients.notify(this.id, held, heldWire);
      }
      this.sends.idle(event);
      return;
    }
    // The current model is read for a resume only: an object per streamed delta otherwise.
    const named =
      event.type === "session.resume"
        ? modelNamesOnWire(event, this.currentModel())
        : modelNamesOnWire(event);
    const wire = this.permissions.wireEvent(event, this.session.cwd, named);
    if (FOLLOWED_LIVE_TYPES.has(event.type)) {
      this.host.store.live?.publish(this.id, event); // To apps on other workers (live-events.ts).
    }
    if (event.type === "tool.execution_complete") {
      this.permissions.calls.delete(event.data.toolCallId);
    }
    if (!this.usageOrder.reorders(event)) {
      this.clients.notify(this.id, event, wire); // most events, every delta: as they come
      return;
    }
    const now = this.usageOrder.order(event, [[event, wire]]);
    if (event.type === "assistant.usage") {
      // Sent at once, before the usage and its reply (usage-order.ts).
      const tokenLimit = this.host.contextWindowOf(this.choices.modelId);
      this.emitSafely(usageInfo(this.session.history, tokenLimit));
    }
    for (const [sent, sentWire] of now) {
      this.clients.notify(this.id, sent, sentWire);
    }
  }
}
// A failure to close (storage-error.ts `HeldBackLostError`), said on stderr.
const sayOnStderr = (error: unknown) => process.stderr.write(`turnloop: ${errorMessage(error)}\n`);
