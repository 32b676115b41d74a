/**
 * What `Session.resume` folds (issue 26 figure 5a: resuming a 100,000-event log). The history,
 * the grants and the instructions are folded from each event as the store reads it
 * ({@link ResumeFold}), and the store is asked to keep none but the few events the resume reads
 * itself: holding a long log's envelopes until the fold cost more than reading them (each one was
 * copied by the collector while the rest of the log was read).
 */

import { History } from "../agent/history.js";
import type { SessionEvent, SessionEventOf, SessionEventType } from "../events/events.js";
import type { McpToolAssignment } from "../tools/mcp/offered-tools.js";
import { openAppender } from "./idle-lease.js";
import { OpenWork } from "./open-work.js";
import type { OpeningOptions } from "./opening.js";
import { conversationEvents } from "./rewind.js";
import { SessionGrants } from "./session-grants.js";
import type { OpenedSession, SessionStore, StoredLog } from "./session-store.js";
import { SessionMetrics } from "./usage-totals.js";

/**
 * Events `Session.resume` reads itself, besides the fold: the start, earlier resumes (their
 * repair notes are not reported twice, open-work.ts `repairNotice`), rewinds and the
 * instructions loaded.
 */
const RESUME_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  "session.start",
  "session.resume",
  "session.snapshot_rewind",
  "session.instructions_loaded",
]);

/**
 * What a session folds from its conversation's events: history, grants, instructions, model;
 * and from every stored event, rewound ones too, its metrics.
 */
export interface ConversationState {
  readonly history: History;
  readonly grants: SessionGrants;
  /** The last `session.instructions_loaded`, if any. */
  instructions: SessionEventOf<"session.instructions_loaded">["data"] | undefined;
  /** The model of the last `session.model_change`, if any (else `session.start`'s is in use). */
  changedModel: string | undefined;
  /** Turns and the compaction not ended yet. */
  readonly openWork: OpenWork;
  /** What `session.shutdown` reports, over every stored event (usage-totals.ts `SessionMetrics`). */
  readonly metrics: SessionMetrics;
  /** The names the session's MCP tools were called by ({@link McpToolNames}). */
  readonly mcpToolNames: McpToolNames;
}

/**
 * The name → (server, tool) of every MCP tool call in a log, from its `tool.execution_start`
 * (`toolName`, `mcpServerName`, `mcpToolName`; a start without `mcpToolName` is left out), in
 * order: a resumed session's servers give the same names to the same tools
 * (tools/mcp/offered-tools.ts `OfferedTools.restore`), so a name in its history never comes to
 * name another server's tool.
 */
export class McpToolNames {
  #assignments = new Map<string, McpToolAssignment>();

  record(event: SessionEvent): void {
    if (event.type !== "tool.execution_start") {
      return;
    }
    const { toolName, mcpServerName, mcpToolName } = event.data;
    if (mcpServerName !== undefined && mcpToolName !== undefined) {
      // Its latest meaning last: a name recorded again moves to the end.
      this.#assignments.delete(toolName);
      this.#assignments.set(toolName, {
        name: toolName,
        serverName: mcpServerName,
        toolName: mcpToolName,
      });
    }
  }

  /** Each name once, with the tool it named last, in the order of those last calls. */
  assignments(): McpToolAssignment[] {
    return [...this.#assignments.values()];
  }

  clear(): void {
    this.#assignments.clear();
  }
}

/** Folds one event of a conversation (rewind.ts) into `state`. */
export function foldEvent(state: ConversationState, event: SessionEvent): void {
  state.history.apply(event);
  state.grants.record(event);
  state.openWork.apply(event);
  state.mcpToolNames.record(event);
  if (event.type === "session.instructions_loaded") {
    state.instructions = event.data;
  } else if (event.type === "session.model_change") {
    state.changedModel = event.data.newModel;
  }
}

/** Folds `events` of a conversation (rewind.ts) into `state`, in order; not its metrics. */
export function foldConversation(state: ConversationState, events: Iterable<SessionEvent>): void {
  for (const event of events) {
    foldEvent(state, event);
  }
}

/**
 * Folds the conversation of `state` again from `events` (a rewind, session.ts): history, grants
 * and open work are cleared first; the metrics, over every stored event, are kept.
 */
export function foldConversationAgain(
  state: ConversationState,
  events: Iterable<SessionEvent>,
): void {
  state.history.clear();
  state.grants.clear();
  state.openWork.clear();
  state.mcpToolNames.clear();
  foldConversation(state, events);
}

/** Folds a stored event that follows those folded: into the conversation and the metrics. */
export function foldStored(state: ConversationState, event: SessionEvent): void {
  foldEvent(state, event);
  state.metrics.apply(event);
}

/**
 * A conversation folded while the store reads the log: its {@link keep} is the store's
 * `LeaseOptions.keep`. A rewind read makes the fold unusable (what it drops was folded already),
 * as does a store that ignores `keep` or calls it for only some events ({@link foldedAll}).
 */
export class ResumeFold implements ConversationState {
  history = new History();
  grants = new SessionGrants();
  instructions: ConversationState["instructions"];
  changedModel: string | undefined;
  openWork = new OpenWork();
  metrics = new SessionMetrics();
  mcpToolNames = new McpToolNames();
  /** Whether a `session.snapshot_rewind` was read. */
  rewound = false;
  /** Events folded. */
  #folded = 0;
  /** Sequence number of the last event folded. */
  #lastSeq = 0;

  /**
   * Folds `event` (line `seq` of the log) and says whether the store must keep it: only the
   * events of {@link RESUME_TYPES}. A store that reads the log again from the start (`seq` not
   * after the last one) starts the fold again.
   */
  readonly keep = (event: SessionEvent, seq: number): boolean => {
    if (seq <= this.#lastSeq) {
      this.history = new History();
      this.grants = new SessionGrants();
      this.instructions = undefined;
      this.changedModel = undefined;
      this.openWork = new OpenWork();
      this.metrics = new SessionMetrics();
      this.mcpToolNames = new McpToolNames();
      this.rewound = false;
      this.#folded = 0;
    }
    this.#lastSeq = seq;
    this.#folded += 1;
    this.metrics.apply(event);
    if (event.type === "session.snapshot_rewind") {
      this.rewound = true;
    }
    if (!this.rewound) {
      foldEvent(this, event);
    }
    return RESUME_TYPES.has(event.type);
  };

  /**
   * Whether the fold is the conversation of `log`: no rewind read, and {@link keep} called for
   * every event the store read.
   */
  foldedAll(log: StoredLog): boolean {
    return !this.rewound && this.#folded === (log.eventCount ?? log.events.length);
  }

  /** Whether the store never called {@link keep} (it may ignore it and keep every event). */
  get keepIgnored(): boolean {
    return this.#folded === 0;
  }
}

/**
 * The conversation of the whole log, when the fold made while the store read it is unusable:
 * the events the store gave when it ignored `keep`, else those of a second, whole read, without
 * the lease (the caller holds it, nobody else appends).
 */
async function foldAgain(
  store: SessionStore,
  sessionId: string,
  fold: ResumeFold,
  log: StoredLog,
): Promise<ConversationState> {
  const events = fold.keepIgnored ? log.events : (await store.read(sessionId)).events;
  const state: ConversationState = {
    history: new History(),
    grants: new SessionGrants(),
    instructions: undefined,
    changedModel: undefined,
    openWork: new OpenWork(),
    metrics: new SessionMetrics(),
    mcpToolNames: new McpToolNames(),
  };
  for (const event of events) {
    state.metrics.apply(event);
  }
  foldConversation(state, conversationEvents(events));
  return state;
}

/** What `Session.resume` starts from. */
export interface ResumeOpening {
  /** The lease and what the store kept of the log (the events of {@link RESUME_TYPES}). */
  opened: OpenedSession;
  /** The log's first `session.start`. */
  start: SessionEventOf<"session.start">;
  /** The conversation folded: history, grants and instructions. */
  state: ConversationState;
}

/**
 * Takes `sessionId`'s lease (idle-lease.ts `openAppender`, `releaseWhenIdle` as there), folding
 * the conversation as the store reads the log ({@link ResumeFold}). When that fold is unusable,
 * folds the conversation (rewind.ts) of the whole log: the events the store gave when it ignored
 * `keep`, else those of a second, whole read (a rewind drops events that were folded already).
 * `beforeResume` checks the start and the folded conversation first (see `OpeningOptions`).
 * @throws as `openAppender`; an Error when the log has no `session.start`, `beforeResume`'s
 * rejection, or the store's read error (the lease is given back first).
 */
export async function openForResume(
  store: SessionStore,
  sessionId: string,
  releaseWhenIdle: boolean,
  beforeResume?: OpeningOptions["beforeResume"],
): Promise<ResumeOpening> {
  const fold = new ResumeFold();
  const opened = await openAppender(store, sessionId, releaseWhenIdle, fold.keep);
  try {
    const { log } = opened;
    const start = log.events.find((event) => event.type === "session.start");
    if (start?.type !== "session.start") {
      throw new Error(
        `session ${sessionId} has no session.start event; it cannot be resumed. Its conversation can still be read (turnloop sessions show ${sessionId}, or sessions export ${sessionId} --format markdown); start a new session to go on`,
      );
    }
    const state = fold.foldedAll(log) ? fold : await foldAgain(store, sessionId, fold, log);
    await beforeResume?.(start.data, state);
    return { opened, start, state };
  } catch (error) {
    await opened.appender.close();
    throw error;
  }
}
