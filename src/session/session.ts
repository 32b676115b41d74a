import { mkdir } from "node:fs/promises";
import { type CompactionResult, compactConversation } from "../agent/compaction.js";
import { History } from "../agent/history.js";
import {
  type AgentSettings,
  type PromptOutcome,
  runPrompt,
  toolSpecifications,
} from "../agent/loop.js";
import { interrupted } from "../agent/tool-calls.js";
import { errorMessage } from "../events/errors.js";
import type {
  EventInput,
  PromptImage,
  RepairNote,
  SessionEvent,
  SessionEventOf,
  UserMessageSource,
} from "../events/events.js";
import { isEphemeral } from "../events/events.js";
import { type PermissionRule, parseRule } from "../permissions/permission-rules.js";
import type { McpServers } from "../tools/mcp/servers.js";
import { createEnvelope, EventLog } from "./event-log.js";
import { eventsPath, newSessionId, sessionDirectory, validateSessionId } from "./paths.js";
import { repairNotice } from "./repair-notice.js";
import { eventRedactor } from "./secrets.js";
import { SessionLock } from "./session-lock.js";
import { SessionWriter } from "./session-writer.js";

/** Runs `open` holding `lock`; releases the lock when `open` throws. */
async function withLock<T>(lock: SessionLock, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Agent settings a session fills in itself. */
export type SessionAgentSettings = Omit<AgentSettings, "sessionDirectory" | "cwd">;

/** Receives every event of a session, ephemeral ones included, in order. */
export type SessionListener = (event: SessionEvent) => void;

/** The producer version written into `session.start`. */
export const PRODUCER_VERSION = "0.1.0";

/** Thrown by {@link Session.prompt} when a prompt is already running in the session. */
export class PromptInProgressError extends Error {
  constructor(sessionId: string) {
    super(`Session ${sessionId} is already running a prompt; cancel it or wait for it to end.`);
    this.name = "PromptInProgressError";
  }
}

/**
 * One session: its `events.jsonl`, the history folded from it, and its subscribers.
 *
 * Every event goes through {@link Session.emit}: persisted events are on disk before any
 * subscriber sees them, and the log is synced at each `assistant.turn_end` and before a prompt's
 * outcome is returned.
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly directory: string;
  /** `session.start` of this session, as in the log. */
  readonly start: SessionEventOf<"session.start">["data"];
  readonly history = new History();
  /** Rules from "always" answers recorded in this session's log (they survive resume). */
  readonly grants: { allow: PermissionRule[]; deny: PermissionRule[] } = { allow: [], deny: [] };
  /** The last `session.instructions_loaded` of this session's log, if any. */
  instructions: SessionEventOf<"session.instructions_loaded">["data"] | undefined;
  private readonly log: EventLog;
  private readonly lock: SessionLock;
  private readonly writer: SessionWriter;
  private readonly listeners = new Set<SessionListener>();
  /** Secrets of the environment out of every event, before it is written, folded or sent. */
  private readonly redact = eventRedactor(process.env);
  private running: AbortController | undefined;
  private mcpServers: McpServers | undefined;
  /**
   * Set when the log refused an event of the running prompt (e.g. `ENOSPC`): the prompt is
   * stopped, and its later persisted events are dropped, since they would describe a history the
   * disk does not have. Reported as `session.error` when the prompt ends.
   */
  private writeFailure: unknown;
  /** The error answer of the prompt whose write failed, once reported. */
  private failedPrompt: { errorType: "storage"; message: string } | undefined;
  /**
   * Events of opening the session, emitted before anyone could subscribe: `session.start`, and on
   * resume `session.resume` and repairs. Faces that print every event (`--output-format json`)
   * start with these.
   */
  openingEvents: SessionEvent[] = [];

  /** What opening this session repaired, if anything new (see `repair-notice.ts`); show it once. */
  get repairNotice(): string | undefined {
    const resume = this.resumeEvent;
    return resume?.type === "session.resume" ? resume.data.notice : undefined;
  }

  /** The `session.resume` event of this open, when the session was resumed. */
  get resumeEvent(): SessionEvent | undefined {
    return this.openingEvents.find((event) => event.type === "session.resume");
  }

  private constructor(
    log: EventLog,
    lock: SessionLock,
    writer: SessionWriter,
    start: SessionEventOf<"session.start">["data"],
    directory: string,
  ) {
    this.log = log;
    this.lock = lock;
    this.writer = writer;
    this.start = start;
    this.id = start.sessionId;
    this.cwd = start.cwd;
    this.directory = directory;
  }

  /**
   * Starts a new session under `home` and writes its `session.start`. `options.sessionId` lets an
   * app choose the id (the Copilot SDK does); default a new UUID. Takes the session's lock
   * (see session-lock.ts) until {@link close}.
   * @throws InvalidSessionIdError for an unsafe id; SessionLockedError when another process has
   * a session with that id open; Error when a session with that id exists.
   */
  static async create(
    home: string,
    cwd: string,
    model: string,
    options: { sessionId?: string } = {},
  ): Promise<Session> {
    const sessionId =
      options.sessionId === undefined ? newSessionId() : validateSessionId(options.sessionId);
    const directory = sessionDirectory(home, sessionId);
    await mkdir(directory, { recursive: true });
    const lock = await SessionLock.acquire(directory, sessionId);
    const { log, events, repaired } = await withLock(lock, () =>
      EventLog.open(eventsPath(home, sessionId), {
        create: true,
      }),
    );
    if (events.length > 0 || repaired.length > 0) {
      await log.close();
      await lock.release();
      throw new Error(`a session ${sessionId} already exists; resume it instead`);
    }
    const start: SessionEventOf<"session.start">["data"] = {
      sessionId,
      version: 1,
      producer: "turnloop",
      producerVersion: PRODUCER_VERSION,
      startTime: new Date().toISOString(),
      cwd,
      model,
    };
    const session = new Session(log, lock, new SessionWriter(log, null), start, directory);
    session.openingEvents = [session.emit({ type: "session.start", data: start })];
    await log.flush();
    return session;
  }

  /**
   * Reopens a session: folds its log into the history, records `session.resume` with the damage
   * the reader skipped, and gives every tool call left without a result (crash, kill) an
   * interrupted result, on disk before the next model request (case 01). Takes the session's
   * lock (see session-lock.ts) until {@link close}.
   * @throws InvalidSessionIdError for an unsafe id; ENOENT when the session does not exist;
   * SessionLockedError when the session is open for writing (another process, or this one); an
   * Error when the log has no `session.start`.
   */
  static async resume(home: string, sessionId: string): Promise<Session> {
    const directory = sessionDirectory(home, sessionId);
    const lock = await SessionLock.acquire(directory, sessionId);
    const opened = await withLock(lock, () =>
      EventLog.open(eventsPath(home, sessionId), {
        create: false,
      }),
    );
    const first = opened.events.find((event) => event.type === "session.start");
    if (first?.type !== "session.start") {
      await opened.log.close();
      await lock.release();
      throw new Error(`Session ${sessionId} has no session.start event; it cannot be resumed.`);
    }
    const writer = new SessionWriter(opened.log, opened.events.at(-1)?.id ?? null);
    const session = new Session(opened.log, lock, writer, first.data, directory);
    for (const event of opened.events) {
      session.history.apply(event);
      session.recordGrant(event);
      session.recordInstructions(event);
    }
    const repaired: RepairNote[] = opened.repaired;
    const notice = repairNotice(opened.events, repaired, session.history.pendingToolCalls.length);
    const resumeEvent = session.emit({
      type: "session.resume",
      data: {
        resumeTime: new Date().toISOString(),
        eventCount: opened.events.length,
        repaired,
        ...(notice === undefined ? {} : { notice }),
      },
    });
    session.openingEvents = [first, resumeEvent, ...session.closeOpenToolCalls()];
    await opened.log.flush();
    return session;
  }

  /**
   * Gives the session its MCP servers (already starting): each prompt waits for them within their
   * start-up wait, and each model request offers the tools of those connected then; {@link close}
   * closes them.
   */
  useMcpServers(servers: McpServers): void {
    this.mcpServers = servers;
  }

  /** The session's MCP servers, if it has any. */
  get mcp(): McpServers | undefined {
    return this.mcpServers;
  }

  /** Subscribes to every event from now on; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether a prompt is running. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Records an event: secrets redacted (secrets.ts), envelope, disk (unless ephemeral), history,
   * then subscribers, so the live history and what subscribers see equal what a resume reads. A
   * listener that throws does not stop the others or the loop.
   */
  emit(input: EventInput): SessionEvent {
    const redacted = this.redact(input);
    if (redacted.type === "session.idle" && this.writeFailure !== undefined) {
      this.reportWriteFailure();
      return this.deliver(this.writer.write({ type: "session.idle", data: {} }));
    }
    let event: SessionEvent;
    try {
      event = this.recordable(redacted);
    } catch (error) {
      if (this.running === undefined) {
        throw error;
      }
      // Inside a prompt (whose promise never throws): stop it, and say why when it ends.
      this.writeFailure ??= error;
      this.running.abort();
      return createEnvelope(redacted, this.writer.lastPersistedId);
    }
    return this.deliver(event);
  }

  /** Writes `input` (unless ephemeral), or refuses it after a failed write in this prompt. */
  private recordable(input: EventInput): SessionEvent {
    if (this.writeFailure !== undefined && !isEphemeral(input.type)) {
      throw this.writeFailure;
    }
    return this.writer.write(input);
  }

  /** Folds `event` into the history and hands it to every subscriber. */
  private deliver(event: SessionEvent): SessionEvent {
    this.history.apply(event);
    this.recordGrant(event);
    this.recordInstructions(event);
    if (event.type === "assistant.turn_end") {
      this.log.flush().catch(() => undefined);
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A face's bug must not break the session; the face reports its own errors.
      }
    }
    return event;
  }

  /**
   * Ends a prompt whose log write failed: `session.error` (written if the disk takes it now, sent
   * to subscribers either way). Calls left open get their interrupted result at the next prompt
   * or resume.
   */
  private reportWriteFailure(): void {
    const failure = this.writeFailure;
    this.writeFailure = undefined;
    const message = this.storageMessage(failure);
    const error: EventInput = { type: "session.error", data: { errorType: "storage", message } };
    this.failedPrompt = { errorType: "storage", message };
    let event: SessionEvent;
    try {
      event = this.writer.write(error);
    } catch {
      event = createEnvelope(error, this.writer.lastPersistedId);
    }
    this.deliver(event);
  }

  private storageMessage(failure: unknown): string {
    return `${this.log.path} could not be written (${errorMessage(failure)}): the prompt was stopped; every event written before is kept`;
  }

  /**
   * Runs one prompt through the loop, with `images` given alongside its text. `signal` (optional)
   * cancels it, as does {@link cancel}.
   * Resolves once the outcome is on disk.
   * @throws PromptInProgressError when a prompt is already running (one at a time, case 26).
   */
  async prompt(
    settings: SessionAgentSettings,
    content: string,
    options: { source?: UserMessageSource; signal?: AbortSignal; images?: PromptImage[] } = {},
  ): Promise<PromptOutcome> {
    if (this.running !== undefined) {
      throw new PromptInProgressError(this.id);
    }
    const controller = new AbortController();
    this.running = controller;
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) {
      controller.abort();
    }
    let outcome: PromptOutcome;
    try {
      // Calls a failed write left open get their interrupted result before anything else.
      this.closeOpenToolCalls();
      const mcp = this.mcpServers;
      await mcp?.whenStarted(controller.signal);
      const agentSettings = {
        ...settings,
        ...(mcp === undefined ? {} : { changingTools: () => mcp.tools() }),
        cwd: this.cwd,
        sessionDirectory: this.directory,
      };
      const conversation = {
        history: this.history,
        emit: (event: EventInput) => void this.emit(event),
      };
      const source = options.source ?? "user";
      const prompt = {
        content,
        source,
        ...(options.images === undefined ? {} : { images: options.images }),
      };
      outcome = await runPrompt(agentSettings, conversation, prompt, controller.signal);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.running = undefined;
    }
    const failed = this.failedPrompt;
    this.failedPrompt = undefined;
    try {
      await this.log.flush();
    } catch (error) {
      return { error: { errorType: "storage", message: this.storageMessage(error) } };
    }
    return failed === undefined ? outcome : { error: failed };
  }

  /**
   * Compacts the history now (`/compact`, `sessions compact`, `session.history.compact`): one
   * summary request with the user's `instructions`, recorded as a compaction with trigger
   * `manual`. Cancelled by {@link cancel} or `options.signal`. Resolves once it is on disk.
   * @throws PromptInProgressError when a prompt is running.
   */
  async compact(
    settings: SessionAgentSettings,
    instructions: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompactionResult> {
    if (this.running !== undefined) {
      throw new PromptInProgressError(this.id);
    }
    const controller = new AbortController();
    this.running = controller;
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) {
      controller.abort();
    }
    try {
      const conversation = {
        history: this.history,
        emit: (event: EventInput) => void this.emit(event),
      };
      const tools = toolSpecifications(settings.tools);
      return await compactConversation(
        settings,
        conversation,
        { trigger: "manual", tools, instructions },
        controller.signal,
      );
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.running = undefined;
      await this.log.flush();
    }
  }

  /** Cancels the running prompt, if any (ACP v1 prompt-turn: cancelled). An idle cancel does nothing. */
  cancel(): void {
    this.running?.abort();
  }

  /** Closes the MCP servers, then syncs and closes the log and releases the session's lock. */
  async close(): Promise<void> {
    try {
      await this.mcpServers?.close();
      await this.log.close();
    } finally {
      await this.lock.release();
    }
  }

  private recordInstructions(event: SessionEvent): void {
    if (event.type === "session.instructions_loaded") {
      this.instructions = event.data;
    }
  }

  private recordGrant(event: SessionEvent): void {
    if (event.type !== "permission.completed" || event.data.scope !== "session") {
      return;
    }
    const { rule, decision } = event.data;
    if (rule === undefined || decision === "cancelled") {
      return;
    }
    try {
      (decision === "allowed" ? this.grants.allow : this.grants.deny).push(parseRule(rule));
    } catch {
      // A damaged rule in the log grants nothing.
    }
  }

  private closeOpenToolCalls(): SessionEvent[] {
    return [...this.history.pendingToolCalls].map((toolCall) => {
      const outcome = interrupted(toolCall);
      return this.emit({
        type: "tool.execution_complete",
        data: {
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.name,
          success: false,
          result: { content: outcome.content },
          error: { message: outcome.content, code: "interrupted" },
        },
      });
    });
  }
}
