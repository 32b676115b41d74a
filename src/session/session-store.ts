/**
 * The SessionStore port (DESIGN.md, Ports): where a session's events live. The session host and
 * every reader (`turnloop sessions`, the session view, ACP `session/list` / `session/load`, the
 * server's `session.list` / `session.getMessages`) go through it; only a store's implementation
 * knows its files or tables. Today's implementation is the file store (`file-store.ts`:
 * `events.jsonl` per session, a pid lock as its lease); the PostgreSQL store of issue 22 comes
 * behind the same port and runs the same contract suite (`test/session/store-contract.ts`).
 *
 * Writing: {@link SessionStore.create} or {@link SessionStore.open} takes the session's writer
 * lease and gives a {@link SessionAppender}. `append` returns at once (an implementation may write
 * right away, as the file store does, or queue); an event is durable once a later `commit`
 * resolves. The session commits after a prompt's `user.message` (before the model is asked),
 * before a tool that can change anything starts running, at `assistant.turn_end` and before a
 * prompt is answered.
 */

import type { RepairNote, SessionEvent } from "../events/events.js";
import type { LiveEvents } from "./live-events.js";
import type { SessionEventListener, SessionSubscription } from "./session-follower.js";

/** Who holds a session's writer lease. */
export interface LeaseHolder {
  pid: number;
  hostname: string;
  /** The holder's command line, e.g. `turnloop acp`. */
  command: string;
  /** ISO-8601. */
  acquiredAt: string;
  /**
   * The holder lets the lease go whenever its session is idle (idle-lease.ts: the SDK server of
   * the file store), so another process may wait for it instead of being refused.
   */
  releasesWhenIdle?: boolean;
  /**
   * The holder has the session open but idle: nobody writes now, and another holder that lets go
   * when idle may take the lease; any other opener is refused (the file store, session-lock.ts).
   */
  idle?: boolean;
  /**
   * The lease's epoch, raised at every claim (the PostgreSQL store's `sessions.epoch`, from
   * {@link SessionStore.holder} only): another epoch is another lease, which never takes inbox
   * messages addressed to an earlier one (postgres/inbox.ts).
   */
  epoch?: number;
  /**
   * The holder takes the messages sent to its sessions through the inbox (the PostgreSQL store:
   * a worker that called {@link SessionInbox.receive}, i.e. the SDK server); the faces that run
   * one session themselves (`-p`, the interactive face, `turnloop acp`) do not, so another
   * worker's prompt to them is refused ({@link InboxRefusedError}). `false`: an SDK server whose
   * start of reading its inbox failed (nobody reads it), refused too, with its own reason.
   */
  takesInbox?: boolean;
}

/** How a lease is taken ({@link SessionStore.create}, {@link SessionStore.open}). */
export interface LeaseOptions {
  /**
   * Record that this holder lets the lease go when idle ({@link LeaseHolder.releasesWhenIdle}).
   * The PostgreSQL store ignores it: another worker reaches its holder through the inbox.
   */
  releasesWhenIdle?: boolean;
  /**
   * `open` only: the caller needs the events from this sequence number on (it has those before,
   * e.g. a lease taken back, idle-lease.ts). `log.events` may then leave out earlier ones
   * (`log.seqs` says which are there) and `log.repaired` lists only damage found in what was
   * read. The file store reads from where its appender let the lease go idle in this process
   * (issue 26); a store may ignore it and read everything.
   */
  fromSeq?: number;
  /**
   * `open` only: which events the caller needs in `log.events` (Session.resume: those its fold
   * reads). The store may leave the others out, except the last event (`log.seqs` says which are
   * there, `log.eventCount` how many were read); damage is found and listed in every event all the
   * same. Called once per event, in order. A store may ignore it and keep everything (issue 26:
   * a long log's envelopes held at once cost more than reading them).
   */
  keep?: (event: SessionEvent, seq: number) => boolean;
}

export type {
  InboxMessage,
  LeaseGone,
  PromptRefusal,
  PromptWithdrawal,
  RefusedPrompt,
  SessionInbox,
} from "./inbox-port.js";

import type { SessionInbox } from "./inbox-port.js";

export {
  describeHolder,
  InboxRefusedError,
  LeaseLostError,
  SessionLockedError,
} from "./session-locked-error.js";

/** A session's stored events, as read. */
export interface StoredLog {
  /** Every readable event, in order. */
  events: SessionEvent[];
  /** `seqs[i]` is the sequence number of `events[i]` (file store: its 1-based line). */
  seqs: number[];
  /** What was skipped while reading, in order; a `torn_tail` note, if any, is last. */
  repaired: RepairNote[];
  /** The sequence number the next appended event gets. */
  nextSeq: number;
  /**
   * Events read, when {@link LeaseOptions.keep} left some out of `events`; absent:
   * `events.length`.
   */
  eventCount?: number;
}

/** What {@link SessionStore.open} read while taking the lease. */
export interface OpenedSession {
  appender: SessionAppender;
  log: StoredLog;
}

/** How a {@link SessionAppender.commit} is meant. */
export interface CommitOptions {
  /**
   * A checkpoint inside a prompt (a turn's end, before a tool starts): the events must be durable,
   * the listing metadata may lag (a store refreshes it when it chooses; a listing still counts
   * the events past it). Default false: the prompt's end, a close, a command's result.
   */
  checkpoint?: boolean;
  /**
   * The prompt's end (session-journal.ts `endPrompt`): a store whose commits spend a retry budget
   * (PostgreSQL, postgres/database.ts) tries it once only while the last commit it settled failed
   * (the store is known down: that commit gave up); what it holds back stays for the next commit
   * (the next prompt's, the close's), which tries its whole budget. Other stores ignore it.
   */
  endOfPrompt?: boolean;
  /**
   * The events need only be recorded, not durable: what a model request waits for
   * (agent/model-turn.ts: nothing is billed that the log cannot record). A store whose `append`
   * writes at once or throws (files: the line is in the page cache, which every reader and a kill
   * of this process keep) resolves at once, neither syncing nor waiting for a sync under way (one
   * that fails stops the prompt: session-journal.ts); the checkpoints make the events durable
   * (README: before a tool that can change anything runs, at a turn's end, before a prompt is
   * answered; also before a tool that changes nothing, as `recorded`). A store that
   * writes later (PostgreSQL: `append` holds events back) commits as usual, in call order.
   */
  recorded?: boolean;
}

/** The writer of one session, holding its lease until {@link close}. */
export interface SessionAppender {
  readonly sessionId: string;
  /** Where the events go, for messages (the file store: the path of `events.jsonl`). */
  readonly location: string;
  /**
   * Aborted (with the store's error as its reason) once the store finds the writer lease lost:
   * another worker took the session over (the PostgreSQL store's heartbeat). The session then
   * stops its running prompt at once, which kills its tool processes. Absent: never lost (files).
   */
  readonly lost?: AbortSignal;
  /**
   * Present when the lease is let go while the session is idle (idle-lease.ts): takes it back,
   * waiting while another process's prompt holds it, and keeps it until the returned function is
   * called (a prompt holds it from start to end).
   * @throws SessionLockedError when the holder keeps the lease; the store's open errors.
   */
  hold?(): Promise<() => void>;
  /**
   * True when appended events are in no log until the next {@link commit} settles (PostgreSQL:
   * `append` holds them back); the session then hands them to its subscribers only once committed
   * (held-delivery.ts). Absent or false: `append` writes at once (files).
   */
  readonly holdsBack?: boolean;
  /**
   * Where {@link holdsBack}: the id of the last event of this appender a commit stored (`null`
   * before any), which tells, after a commit that failed, which events before it the log holds.
   */
  readonly lastStoredId?: string | null;
  /**
   * Where {@link holdsBack}: `event` (appended here) as the log holds it once a commit stored it.
   * An appender that lets its lease go when idle chains an event appended meanwhile after the
   * events another process appended meanwhile, with a new `parentId` (idle-lease.ts); absent or
   * `event` itself: stored as appended.
   */
  storedVersion?(event: SessionEvent): SessionEvent;
  /**
   * Adds `event` (persisted types only) after every event appended before it. Returns at once.
   * @throws Error for an ephemeral event, a closed appender, or a write that failed (the file
   * store writes here; the event is then not in the log).
   */
  append(event: SessionEvent): void;
  /**
   * Resolves once every event appended before the call is durable (held, when `recorded`; and,
   * unless it is a checkpoint, the listing metadata reflects them). Commits run in call order (a
   * `recorded` one may settle first: {@link CommitOptions.recorded}).
   * @throws the store's write error; the events after the last good commit may be lost.
   */
  commit(options?: CommitOptions): Promise<void>;
  /** Commits, then releases the lease. Later appends throw. Closing twice is a no-op. */
  close(): Promise<void>;
  /**
   * Present where a lease can be held idle (the file store, session-lock.ts): commits and stops
   * writing, like {@link close}, but keeps the lease marked as held idle by this process (another
   * holder that lets go when idle may take it; other openers are refused) until the returned
   * function gives the session up.
   * @throws the store's write error (the lease is then given up).
   */
  closeIdle?(): Promise<() => Promise<void>>;
}

/** One session as listed: metadata kept by the store, never computed by reading whole logs. */
export interface SessionSummary {
  sessionId: string;
  /** From `session.start`; `null` when the log has no readable `session.start` (see `problem`). */
  cwd: string | null;
  /**
   * The model a resume uses: the last `session.model_change`'s, else `session.start`'s; `null`
   * without a readable `session.start`.
   */
  model: string | null;
  /** ISO-8601, from `session.start`: when the session was created. */
  startTime: string | null;
  /**
   * ISO-8601: timestamp of the latest event other than `session.resume` and `session.shutdown`
   * (a read that reopens the session is not work in it; session-metadata.ts), never before
   * {@link startTime} (a fork's copied events keep their earlier times), else the log's
   * modification time.
   */
  lastActivity: string;
  /** Model requests (`assistant.turn_start`) but failed attempts sent again (session-metadata.ts). */
  turns: number;
  /** Number of stored events. */
  eventCount: number;
  /** Bytes the session's events take in the store. */
  size: number;
  /** The title: the first `user.message` with source `user`, on one line, ≤ 80 characters. */
  firstPrompt: string | null;
  /** The name the session was given last (`session.title_changed`), when it was given one. */
  name?: string;
  /** The last prompt has no end and no live process holds the session (its process ended). */
  interrupted?: true;
  /** Where the log is (the file store: the path of `events.jsonl`). */
  eventsPath: string;
  /**
   * Set when the log cannot be read or has no `session.start`. Such sessions are still listed
   * (with what is known) so that they can be inspected and deleted; resuming them will fail.
   */
  problem?: string;
}

/**
 * What every view says where a prompt was lost: its `user.message` was on a damaged line the
 * reader skipped, yet the model's turns answering it were read (session-model/types.ts
 * `Prompt.lost`; in lists, a session with turns and no readable prompt).
 */
export const LOST_PROMPT_WORDS = "a prompt lost with a damaged line of the log";

/**
 * The line that stands for a session in lists and pickers: the name it was given, else its first
 * prompt, else why its log cannot be read, else `({@link LOST_PROMPT_WORDS})` when it has turns
 * (they answered a prompt whose line was damaged), else `(no prompt yet)` (a session an editor
 * opened and sent nothing to).
 */
export function summaryLine(
  summary: Pick<SessionSummary, "firstPrompt" | "name" | "problem" | "turns">,
): string {
  const none = summary.turns > 0 ? `(${LOST_PROMPT_WORDS})` : "(no prompt yet)";
  return summary.name ?? summary.firstPrompt ?? summary.problem ?? none;
}

/** The port. Every method validates the session id (`paths.ts`: `InvalidSessionIdError`). */
export interface SessionStore {
  /** Where the sessions are, for messages (the file store: `$TURNLOOP_HOME`). */
  readonly location: string;
  /**
   * Messages to the worker holding a session, for faces on other workers; absent where one
   * process serves every session (the file store).
   */
  readonly inbox?: SessionInbox;
  /** Ephemeral events from a session's holder to the workers following it (live-events.ts). */
  readonly live?: LiveEvents;
  /**
   * Present where the store is a database shared by workers (PostgreSQL): checks from now on, at
   * each heartbeat, that it is reachable, even while this process holds no session, and says so
   * through the store's notice once when it is not and once when it is back (a server worker's
   * stderr; postgres/lease.ts `LeaseKeeper`). Returns at once; the store's `close` stops it.
   */
  watch?(): void;
  /**
   * Present where the store keeps connections of its own (PostgreSQL: the query pool, the
   * heartbeat's, the `LISTEN`s): ends them, once every appender and subscription is closed (the
   * host's `closeAll`). Closing twice is a no-op; a later call connects again.
   */
  close?(): Promise<void>;
  /**
   * Takes the lease of a new session `sessionId` for appending.
   * @throws SessionLockedError when someone holds it; Error when a session with that id exists.
   */
  create(sessionId: string, options?: LeaseOptions): Promise<SessionAppender>;
  /**
   * Takes the lease of an existing session and reads it; damage is repaired (a torn tail is cut
   * so that appends start on a line of their own) and listed in `log.repaired`.
   * @throws an Error with `code: "ENOENT"` when there is no such session; SessionLockedError
   * when a live holder has it (a dead holder's lease on this machine is taken over).
   */
  open(sessionId: string, options?: LeaseOptions): Promise<OpenedSession>;
  /**
   * The session's events with sequence number ≥ `fromSeq` (default 1: all), without the lease
   * (a writer may be appending). Damage never throws; it is listed in `repaired`.
   * @throws an Error with `code: "ENOENT"` when there is no such session; I/O errors.
   */
  read(sessionId: string, options?: { fromSeq?: number }): Promise<StoredLog>;
  /**
   * Follows the session without its lease: `onEvent` gets every persisted event with sequence
   * number ≥ `fromSeq`, in order, exactly once: first those stored now (the promise resolves once
   * they were delivered), then each batch as its writer commits it, until the subscription is
   * closed or the session deleted. The file store follows the commits of its appenders in this
   * process at once and another process's appends through `fs.watch` and a slow poll
   * (log-watch.ts); the PostgreSQL store through `LISTEN/NOTIFY` (postgres/notify.ts). A read that fails meanwhile is tried again; nothing is skipped.
   * @throws an Error with `code: "ENOENT"` when there is no such session; I/O errors.
   */
  subscribe(
    sessionId: string,
    fromSeq: number,
    onEvent: SessionEventListener,
  ): Promise<SessionSubscription>;
  /**
   * Every session, newest `lastActivity` first (ties by id); with `filter.cwd`, those whose
   * `session.start` cwd is that folder (both resolved to absolute paths).
   */
  list(filter?: { cwd?: string | undefined }): Promise<SessionSummary[]>;
  /** One session as {@link list} lists it, from its metadata alone (`metadata.json`, PostgreSQL's
   * `sessions` row); `undefined` when the store lists none of that id (or the id is invalid). */
  summary(sessionId: string): Promise<SessionSummary | undefined>;
  /**
   * Deletes a session nobody holds, with its files folder; a store with {@link live} tells the
   * other workers following it (live-events.ts `onDeleted`).
   * @returns `false` when there was no such session.
   * @throws SessionLockedError when it is held (this process included).
   */
  delete(sessionId: string): Promise<boolean>;
  /** The live holder of the session's lease, `"unreadable"` when unknown, else `undefined`. */
  holder(sessionId: string): Promise<LeaseHolder | "unreadable" | undefined>;
  /**
   * The session's log as stored, byte for byte: the lines of `events.jsonl` (the PostgreSQL store:
   * its rows' lines, in order), damaged lines and a torn tail included (`turnloop sessions
   * export --format jsonl`).
   * @throws an Error with `code: "ENOENT"` when there is no such session; I/O errors.
   */
  exportLog(sessionId: string): Promise<Buffer>;
  /**
   * Stores `log` (bytes {@link exportLog} gave, from this store or another) as the session
   * `sessionId`, byte for byte, with its listing metadata; nobody holds it afterwards.
   * @throws Error when a session with that id exists.
   */
  importLog(sessionId: string, log: Buffer): Promise<void>;
  /**
   * A local folder for the session's files (saved full tool outputs, MCP results, uploads); the
   * caller creates it when it writes there.
   */
  filesFolder(sessionId: string): string;
}

/**
 * The full id of the session `idOrPrefix` names: the id itself when such a session exists, else
 * the one session whose id starts with it (as `git` resolves short hashes); an empty or blank
 * word names none.
 * @returns the id, or an error message (no id / no such session / ambiguous prefix).
 */
export async function resolveSessionId(
  store: SessionStore,
  idOrPrefix: string,
): Promise<{ ok: true; sessionId: string } | { ok: false; message: string }> {
  if (idOrPrefix.trim() === "") {
    // Every id starts with "": a blank word names no session, not the only one there is.
    return { ok: false, message: "a session id is needed (turnloop sessions lists them)" };
  }
  const sessions = await store.list();
  if (sessions.some((session) => session.sessionId === idOrPrefix)) {
    return { ok: true, sessionId: idOrPrefix };
  }
  const matches = sessions.filter((session) => session.sessionId.startsWith(idOrPrefix));
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) {
    return { ok: true, sessionId: only.sessionId };
  }
  if (matches.length === 0) {
    return {
      ok: false,
      message: `no session ${idOrPrefix} in ${store.location} (turnloop sessions lists them)`,
    };
  }
  const named = matches.slice(0, 3).map((session) => session.sessionId);
  return {
    ok: false,
    message: `${idOrPrefix} matches ${matches.length} sessions (${named.join(", ")}${
      matches.length > 3 ? ", …" : ""
    }); give more of the id`,
  };
}
