import * as compaction from "../agent/compaction.js";
import { History } from "../agent/history.js";
import {
  type AgentSettings,
  type PromptOutcome,
  runPrompt,
  type UserPrompt,
} from "../agent/loop.js";
import { toolSpecifications } from "../agent/tool-specifications.js";
import { cancelReason } from "../events/errors.js";
import type { EventInput, SessionEvent, SessionEventOf } from "../events/events.js";
import type { McpServers } from "../tools/mcp/servers.js";
import { DeferredAppender, firstWrite, unsavedLog } from "./deferred-appender.js";
import { createAppender, followOthers } from "./idle-lease.js";
import { OpenWork, resumeData } from "./open-work.js";
import { type CreationOptions, type OpeningOptions, startData } from "./opening.js";
import { newSessionId, validateSessionId } from "./paths.js";
import { PromptInProgressError } from "./prompt-in-progress.js";
import {
  type ConversationState,
  foldConversationAgain,
  foldStored,
  McpToolNames,
  openForResume,
} from "./resume-fold.js";
import { conversationEvents, rewindCut } from "./rewind.js";
import { RunningPrompt } from "./running-prompt.js";
import { EventRedaction, type RedactionOptions } from "./secrets.js";
import { SessionGrants } from "./session-grants.js";
import { SessionJournal } from "./session-journal.js";
import type { SessionAppender, SessionStore, StoredLog } from "./session-store.js";
import { publishTo } from "./session-writer.js";
import { SessionMetrics } from "./usage-totals.js";

/** Agent settings a session fills in itself. */
export type SessionAgentSettings = Omit<AgentSettings, "sessionDirectory" | "cwd">;

/** Receives every event of a session, ephemeral ones included, in order. */
export type SessionListener = (event: SessionEvent) => void;

export { PRODUCER_VERSION } from "./version.js";
export { PromptInProgressError };

/**
 * One session: its events in a {@link SessionStore}, the history folded from them, its subscribers.
 * Every event goes through {@link Session.emit}: persisted events are appended to the store before
 * any subscriber sees them (committed first when the store holds appends back: held-delivery.ts),
 * and committed (durable) after a prompt's `user.message` and before a
 * tool starts running (the loop's checkpoints), at each `assistant.turn_end`, at each
 * `permission.requested` (the question waits for an answer that may come from a face on another
 * worker, which reads it from the store) and before a prompt's outcome is returned.
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  /** The session's own folder for files (saved tool outputs, MCP results, uploads). */
  readonly directory: string;
  /** `session.start` of this session, as stored. */
  readonly start: SessionEventOf<"session.start">["data"];
  readonly history: History;
  /** Rules from "always" answers recorded in this session's log (they survive resume). */
  readonly grants: SessionGrants;
  /** The last `session.instructions_loaded` of this session's log, if any. */
  instructions: SessionEventOf<"session.instructions_loaded">["data"] | undefined;
  /** The model of its last `session.model_change` (none: `start.model` is the one in use). */
  changedModel: string | undefined;
  /** Turns and the compaction its log leaves open (open-work.ts). */
  readonly openWork: OpenWork;
  /** What `session.shutdown` reports, folded from every stored event (usage-totals.ts `SessionMetrics`). */
  readonly metrics: SessionMetrics;
  /** The names its MCP tools were called by (resume-fold.ts `McpToolNames`), kept on resume. */
  readonly mcpToolNames: McpToolNames;
  readonly journal: SessionJournal;
  private readonly listeners = new Set<SessionListener>();
  /** Secrets of the host's environment out of every event, before it is written, folded or sent. */
  private readonly redaction: EventRedaction;
  private readonly running: RunningPrompt;
  private mcpServers: McpServers | undefined;
  /** Events of opening, before any subscriber (`session.start`, or `session.resume` and repairs). */
  openingEvents: SessionEvent[] = [];

  /** What opening repaired, if anything new (open-work.ts `repairNotice`); show it once. */
  get repairNotice(): string | undefined {
    return this.resumeEvent?.type === "session.resume" ? this.resumeEvent.data.notice : undefined;
  }

  /** The `session.resume` event of this open, when the session was resumed. */
  get resumeEvent(): SessionEvent | undefined {
    return this.openingEvents.find((event) => event.type === "session.resume");
  }

  /** Until the first write of a session saved at its first prompt: its events, from memory. */
  unsavedLog(): StoredLog | undefined {
    return unsavedLog(this.journal.appender);
  }

  /** For a reader: {@link unsavedLog}, else undefined once committed or the lease is lost. */
  logForReaders(): Promise<StoredLog | undefined> {
    return this.journal.logForReaders();
  }

  /** Where the session's events are stored (the file store: the path of `events.jsonl`). */
  get transcriptPath(): string {
    return this.journal.appender.location;
  }

  private constructor(
    appender: SessionAppender,
    stored: { lastId: string | null; count: number },
    start: SessionEventOf<"session.start">["data"],
    directory: string,
    redaction: RedactionOptions,
    folded?: ConversationState,
  ) {
    this.history = folded?.history ?? new History();
    this.grants = folded?.grants ?? new SessionGrants();
    this.instructions = folded?.instructions;
    this.changedModel = folded?.changedModel;
    this.openWork = folded?.openWork ?? new OpenWork();
    this.metrics = folded?.metrics ?? new SessionMetrics();
    this.mcpToolNames = folded?.mcpToolNames ?? new McpToolNames();
    this.journal = new SessionJournal(appender, stored, { fold: this.fold, publish: this.publish });
    this.running = new RunningPrompt(start.sessionId, appender);
    followOthers(appender, this.journal, (event) => this.journal.handOnStored(event));
    this.redaction = new EventRedaction(redaction, {
      record: (input) => this.journal.record(input, this.running.controller),
      envelope: (input) => this.journal.envelope(input),
    });
    this.start = start;
    this.id = start.sessionId;
    this.cwd = start.cwd;
    this.directory = directory;
  }

  /**
   * Starts a new session in `store` and commits its `session.start` ({@link CreationOptions}:
   * the Copilot SDK chooses the id; the CLI faces save at the first prompt). Holds the session's
   * writer lease until {@link close}.
   * @throws InvalidSessionIdError for an unsafe id; SessionLockedError when another process has
   * a session with that id open; Error when a session with that id exists; StorageError when
   * its first write fails (deferred-appender.ts `firstWrite`: nothing is left of it).
   */
  static async create(
    store: SessionStore,
    cwd: string,
    model: string,
    options: CreationOptions = {},
  ): Promise<Session> {
    const sessionId =
      options.sessionId === undefined ? newSessionId() : validateSessionId(options.sessionId);
    const appender = options.saveAtFirstPrompt
      ? new DeferredAppender(store, sessionId, options.morePrompts === true)
      : await createAppender(store, sessionId, options.releaseWhenIdle === true);
    const start = startData(sessionId, cwd, model);
    const folder = store.filesFolder(sessionId);
    const session = new Session(appender, { lastId: null, count: 0 }, start, folder, options);
    await firstWrite(store, sessionId, appender, async () => {
      session.openingEvents = [session.emit({ type: "session.start", data: start })];
      await session.journal.commit();
    });
    return session;
  }

  /**
   * Reopens a session: folds its events into the history, records `session.resume` (the damage
   * the reader skipped, `resumeDetails`), and gives every tool call left without a result (crash,
   * kill) an interrupted result, committed before the next model request (case 01). `options` as
   * for {@link create}; `releaseWhenIdle` waits while another process that lets go holds it.
   * @throws InvalidSessionIdError for an unsafe id; ENOENT when the session does not exist;
   * SessionLockedError when the session is open for writing (another process, or this one); an
   * Error when the log has no `session.start`; the store's error, the session let go, on a refusal.
   */
  static async resume(
    store: SessionStore,
    sessionId: string,
    options: OpeningOptions = {},
  ): Promise<Session> {
    const idle = options.releaseWhenIdle === true;
    const resumed = await openForResume(store, sessionId, idle, options.beforeResume);
    const { opened, start: first, state } = resumed;
    const { appender, log } = opened;
    const stored = {
      lastId: log.events.at(-1)?.id ?? null,
      count: log.eventCount ?? log.events.length,
    };
    const folder = store.filesFolder(sessionId);
    const session = new Session(appender, stored, first.data, folder, options, state);
    const closed = session.openWork.closed(session.history.pendingToolCalls.length);
    const resumeEvent = session.emit({
      type: "session.resume",
      data: { ...resumeData(log, closed), ...options.resumeDetails },
    });
    session.openingEvents = [first, resumeEvent, ...session.closeOpenWork()];
    await session.journal.commit().catch(async (error: unknown) => {
      await appender.close(); // its lock must not outlive a reopening the store refused
      throw error;
    });
    return session;
  }

  /**
   * Gives the session its MCP servers (already starting): a prompt waits for them to start, each
   * model request offers the tools of those connected then; {@link close} closes them.
   */
  useMcpServers(servers: McpServers): void {
    this.mcpServers = servers;
  }

  /** The project's MCP servers not started as it is untrusted (for `/mcp`; mcp-servers.ts). */
  mcpWaitingForTrust:
    | { path: string; names: string[]; sources?: Record<string, string> }
    | undefined;
  /** What a prompt's loop reads of the MCP servers, named apart from `taken` (mcp-servers.ts). */
  mcpLoopTools: (taken: string[]) => Partial<ReturnType<McpServers["loopTools"]>> = () => ({});

  /** The MCP servers being gathered and started (mcp-servers.ts); `/mcp` waits for it. */
  mcpOpening: Promise<unknown> = Promise.resolve();
  /** Set when {@link close} begins: MCP servers gathered after it are not started. */
  closing = false;

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
    return this.running.controller !== undefined;
  }

  /**
   * Records an event: secrets redacted (secrets.ts), envelope, store (unless ephemeral), history,
   * then subscribers, so the live history equals what a resume reads. A listener that throws does
   * not stop the others or the loop. Inside a prompt, an event the store refuses stops the prompt;
   * subscribers still get it, outside the history, when it reports what the prompt received (the
   * model's reply: session-journal.ts `RECEIVED`).
   * @throws the store's error when no prompt is running.
   */
  emit(input: EventInput): SessionEvent {
    return this.redaction.record(input);
  }

  /** Folds a recorded `event` into the history (session-journal.ts `Recipients`). */
  private readonly fold = (event: SessionEvent): void => {
    foldStored(this, event);
    if (event.type === "assistant.turn_end" || event.type === "permission.requested") {
      this.journal.checkpoint(this.running.controller).catch(() => undefined);
    }
  };

  /** Hands `event` to every subscriber (once the store holds it: session-journal.ts). */
  private readonly publish = (event: SessionEvent): void => publishTo(this.listeners, event);

  /**
   * Runs one prompt through the loop, with `images` given alongside its text; `signal` (optional)
   * cancels it, as does {@link cancel}. Resolves once the outcome is committed.
   * @throws PromptInProgressError when a prompt is already running (one at a time, case 26).
   */
  async prompt(
    settings: SessionAgentSettings,
    content: string,
    options: Omit<UserPrompt, "content"> & { signal?: AbortSignal } = {},
  ): Promise<PromptOutcome> {
    const outcome = await this.running.run(options.signal, async (controller) => {
      // Calls and turns a failed write left open are closed as interrupted before anything else.
      this.closeOpenWork();
      const mcp = this.mcpServers;
      await mcp?.whenStarted(controller.signal);
      const agentSettings = {
        ...settings,
        // MCP tools are named apart from the session's own (and task_complete, autopilot's).
        ...this.mcpLoopTools([...settings.tools.map((tool) => tool.name), "task_complete"]),
        cwd: this.cwd,
        sessionDirectory: this.directory,
      };
      const { signal: _signal, ...given } = options;
      const prompt = { ...given, content, source: options.source ?? "user" };
      return runPrompt(agentSettings, this.conversation(controller), prompt, controller.signal);
    });
    const failed = await this.journal.endPrompt();
    return failed === undefined ? outcome : { error: failed };
  }

  /**
   * Compacts the history now (`/compact`, `sessions compact`, `session.history.compact`): one
   * summary request with `instructions`, trigger `manual`; refused, nothing written, when it would
   * remove nothing. Cancelled by {@link cancel} or `options.signal`; resolves once committed.
   * @throws PromptInProgressError when a prompt is running.
   */
  async compact(
    settings: SessionAgentSettings,
    instructions: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<compaction.CompactionResult> {
    try {
      return await this.running.run(options.signal, async (controller) => {
        const nothing = compaction.nothingToCompact(this.history, compaction.windowOf(settings));
        return nothing !== undefined
          ? { ok: false, cancelled: false, message: nothing }
          : compaction.compactConversation(
              settings,
              this.conversation(controller),
              { trigger: "manual", tools: toolSpecifications(settings.tools), instructions },
              controller.signal,
            );
      });
    } finally {
      await this.journal.commit();
    }
  }

  /** Cancels the running prompt, if any (ACP: cancelled); `by` is recorded (events/errors.ts). */
  cancel(by?: string): void {
    this.running.cancel(cancelReason(by));
  }

  /** Closes the MCP servers, then commits and closes the appender, releasing the lease. */
  async close(): Promise<void> {
    this.closing = true;
    try {
      await this.mcpServers?.close();
    } finally {
      await this.journal.appender.close();
      await this.journal.delivered();
    }
  }

  /** What the loop reads and writes; `checkpoint` commits before a tool, `recorded` before a
   * request; `report` tells the subscribers alone (loop-types.ts `Conversation`). */
  private conversation(controller: AbortController) {
    return {
      history: this.history,
      emit: (event: EventInput) => void this.emit(event),
      report: (event: EventInput) =>
        this.journal.handOn(this.journal.envelope(this.redaction.redact(event)), true),
      checkpoint: () => this.journal.checkpoint(controller),
      recorded: () => this.journal.recorded(controller),
    };
  }

  /**
   * Rewinds the conversation to before `eventId` of `log` (the stored events, just read): appends
   * `session.snapshot_rewind`, folds history and grants again from the events left (rewind.ts).
   * @throws PromptInProgressError while a prompt runs; RewindTargetError (see `rewindCut`).
   */
  async rewind(log: readonly SessionEvent[], eventId: string): Promise<SessionEvent> {
    this.running.refuseWhileRunning();
    const conversation = conversationEvents(log);
    const { index, eventsRemoved } = rewindCut(conversation, eventId);
    foldConversationAgain(this, conversation.slice(0, index));
    const data = { upToEventId: eventId, eventsRemoved };
    const rewind = this.emit({ type: "session.snapshot_rewind", data });
    await this.journal.commit();
    return rewind;
  }

  private closeOpenWork(): SessionEvent[] {
    const closing = this.openWork.closingEvents(this.history.pendingToolCalls);
    return closing.map((input) => this.emit(input));
  }
}
