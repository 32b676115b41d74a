/**
 * How a session records its events in its store, and what it does when the store refuses one:
 * the running prompt is stopped, its later persisted events are dropped (they would describe a
 * history the store does not have), and the prompt ends with a `session.error` of type `storage`.
 * Events that report what the prompt already received ({@link RECEIVED}: the model's reply and
 * usage, a tool call's result) are the exception: refused, they still reach the faces, outside the
 * history, so that a full disk loses no answer the model gave (a trial's finding: `-p` printed
 * the error and not the answer); unless the writer lease was lost: then the log is another
 * process's, which may hold its own version of the same (a takeover's interrupted result), and a
 * client is never told an event the log contradicts (trial 36, P4-2). Events a store holds back
 * until its commit reach the subscribers once committed (held-delivery.ts).
 */

import {
  type EventInput,
  isEphemeral,
  type SessionEvent,
  type SessionEventData,
} from "../events/events.js";
import { unsavedLog, unsavedNote } from "./deferred-appender.js";
import { createEnvelope } from "./envelope.js";
import { HeldDelivery } from "./held-delivery.js";
import {
  type CommitOptions,
  LeaseLostError,
  type SessionAppender,
  type StoredLog,
} from "./session-store.js";
import { SessionWriter } from "./session-writer.js";
import { StorageError, storageProblem } from "./storage-error.js";

/**
 * Events the store may refuse that still reach the faces: each reports something the prompt
 * already has (the model's reply and its usage, a tool call's result), which a user must see.
 */
const RECEIVED: ReadonlySet<SessionEvent["type"]> = new Set([
  "assistant.message",
  "assistant.usage",
  "tool.execution_complete",
]);

/**
 * Where a session's events go (session.ts): `fold` into its history, at once (what the store was
 * given: the live history equals what a resume reads); `publish` to its subscribers, once the
 * store holds the event (held-delivery.ts).
 */
export interface Recipients {
  fold(event: SessionEvent): void;
  publish(event: SessionEvent): void;
}

/** What an `abort` can carry besides its reason ({@link SessionJournal.addToAbort}). */
export type AbortDetails = Required<Pick<SessionEventData["abort"], "droppedPromptIds">>;

/** The writing side of one open session. */
export class SessionJournal {
  readonly appender: SessionAppender;
  readonly #writer: SessionWriter;
  readonly #recipients: Recipients;
  readonly #delivery: HeldDelivery;
  /** Set when the store refused an event of the running prompt; reported when it ends. */
  #writeFailure: unknown;
  /** The error answer of the prompt whose write failed, once reported. */
  #failedPrompt: { errorType: "storage"; message: string } | undefined;
  /** Added to the next `abort` recorded ({@link addToAbort}). */
  #abortDetails: AbortDetails | undefined;

  /** `stored.lastId` and `stored.count`: see {@link SessionWriter}'s constructor. */
  constructor(
    appender: SessionAppender,
    stored: { lastId: string | null; count: number },
    recipients: Recipients,
  ) {
    this.appender = appender;
    this.#writer = new SessionWriter(appender, stored.lastId, stored.count);
    this.#recipients = recipients;
    this.#delivery = new HeldDelivery(appender);
  }

  /**
   * Folds `event` into the history unless `unstored` (an event the log does not hold), and
   * publishes it after every event recorded before it, once the store holds it when it was just
   * appended (held-delivery.ts).
   */
  handOn(event: SessionEvent, unstored?: true): void {
    if (unstored === undefined) {
      this.#recipients.fold(event);
    }
    const appended = unstored === undefined && event.id === this.#writer.lastPersistedId;
    this.#delivery.pass(event, this.#recipients.publish, appended);
  }

  /**
   * Folds and publishes at once `event`, which the log already holds or which follows one it holds
   * (another process appended it; an idle where its prompt ended: idle-lease.ts), ahead of any
   * event of this process waiting for its commit: such an event is written after it.
   */
  handOnStored(event: SessionEvent): void {
    this.#recipients.fold(event);
    this.#recipients.publish(event);
  }

  /**
   * Hands `event`, which no subscriber is told and the log does not hold (the SDK server's
   * `session.idle` for its queue of sends), to `tell` alone once every event handed on before it
   * reached the subscribers, before any handed on after it (held-delivery.ts).
   */
  tellInOrder(event: SessionEvent, tell: (event: SessionEvent) => void): void {
    this.#delivery.pass(event, tell, false);
  }

  /**
   * How many events were handed on ({@link handOn}, {@link tellInOrder}) so far: a mark for
   * {@link delivered}.
   */
  get handedOn(): number {
    return this.#delivery.passed;
  }

  /**
   * Resolves once the first `upTo` events handed on (by default every one before the call) have
   * reached the subscribers, or were dropped (held-delivery.ts).
   */
  delivered(upTo?: number): Promise<void> {
    return this.#delivery.delivered(upTo);
  }

  /** `input` enveloped for the subscribers alone, never stored (its parent: the last stored). */
  envelope(input: EventInput): SessionEvent {
    return createEnvelope(input, this.#writer.lastPersistedId);
  }

  /**
   * For a reader of the log: until the first write of a session saved at its first prompt, its
   * events from memory; else `undefined`, once what was appended is committed (unless the lease is
   * lost).
   */
  async logForReaders(): Promise<StoredLog | undefined> {
    const unsaved = unsavedLog(this.appender);
    if (unsaved === undefined && this.appender.lost?.aborted !== true) {
      await this.commit();
    }
    return unsaved;
  }

  /** How many readable events the log holds once committed ({@link SessionWriter.storedCount}). */
  get storedCount(): number {
    return this.#writer.storedCount;
  }

  /**
   * Envelopes `input`, appends it unless ephemeral, and hands it on ({@link handOn}, after the
   * append, outside it: a throw of a recipient is not the store's). Inside a prompt (`running`), a
   * refused append stops the prompt and the event is returned, published `unstored` when it is one
   * of {@link RECEIVED}, else not handed on; outside a prompt it throws. A `session.idle` after a
   * refusal is preceded by the `session.error` that reports it. No object is made per event
   * besides its envelope: one is recorded per streamed delta.
   * @returns the event (enveloped).
   * @throws the appender's error when no prompt is running.
   */
  record(given: EventInput, running: AbortController | undefined): SessionEvent {
    const input = this.#withAbortDetails(given);
    if (input.type === "session.idle" && this.#writeFailure !== undefined) {
      const error = this.#reportWriteFailure();
      const idle = this.#writeIfPossible({ type: "session.idle", data: {} });
      this.handOn(error);
      this.handOn(idle);
      return idle;
    }
    let event: SessionEvent;
    try {
      if (this.#writeFailure !== undefined && !isEphemeral(input.type)) {
        throw this.#writeFailure;
      }
      event = this.#writer.write(input);
    } catch (error) {
      if (running === undefined) {
        throw error;
      }
      this.#fail(error, running);
      // `ephemeral`: not in the log, as Copilot's envelope says of an event never persisted.
      const refused: SessionEvent = {
        ...createEnvelope(input, this.#writer.lastPersistedId),
        ephemeral: true,
      };
      // A lease lost: the log is another process's now, which may store its own version (a
      // takeover's interrupted result for the same tool call): a client must not be told this one.
      if (RECEIVED.has(refused.type) && !(error instanceof LeaseLostError)) {
        this.handOn(refused, true);
      }
      return refused;
    }
    this.handOn(event);
    return event;
  }

  /**
   * Adds `details` to the next `abort` recorded (the cancelled prompt's, agent/loop.ts), so that
   * one event tells both: the SDK server's queued prompts dropped by the same abort
   * (server/dropped-prompts.ts). @returns what takes them back: `undefined` once an abort
   * carried them, else `details` (no abort was recorded: the caller records them itself).
   */
  addToAbort(details: AbortDetails): () => AbortDetails | undefined {
    this.#abortDetails = details;
    return () => {
      const left = this.#abortDetails;
      this.#abortDetails = undefined;
      return left;
    };
  }

  #withAbortDetails(input: EventInput): EventInput {
    const details = this.#abortDetails;
    if (input.type !== "abort" || details === undefined) {
      return input;
    }
    this.#abortDetails = undefined;
    return { type: "abort", data: { ...input.data, ...details } };
  }

  /**
   * The next event's `parentId` is `eventId` (the last one another process appended); `other`:
   * an event of another process just delivered, counted when it is stored (not ephemeral).
   */
  follow(eventId: string | null, other?: SessionEvent): void {
    this.#writer.follow(eventId, other !== undefined && !isEphemeral(other.type));
  }

  /**
   * Makes every appended event durable, the listing metadata included. A failure inside a prompt
   * (`running`) stops it as a refused append does.
   * @throws the store's error.
   */
  async commit(running?: AbortController): Promise<void> {
    await this.#commit(running, {});
  }

  /**
   * {@link commit} as a checkpoint inside the prompt `running` (a turn's end, before a tool
   * starts): durable, the listing metadata refreshed when the store chooses (session-store.ts
   * `CommitOptions`).
   */
  async checkpoint(running: AbortController | undefined): Promise<void> {
    await this.#commit(running, { checkpoint: true });
  }

  /**
   * Resolves once the store holds every appended event, durable or not (session-store.ts
   * `CommitOptions.recorded`); a failure stops the prompt `running` as {@link commit}'s does.
   * @throws the store's error.
   */
  async recorded(running: AbortController | undefined): Promise<void> {
    // A checkpoint too: a store that commits for it does as it did before each request.
    await this.#commit(running, { checkpoint: true, recorded: true });
  }

  async #commit(running: AbortController | undefined, options: CommitOptions): Promise<void> {
    try {
      await this.appender.commit(options);
      this.#delivery.stored();
    } catch (error) {
      if (running !== undefined) {
        this.#fail(error, running);
      }
      throw error;
    } finally {
      await this.#delivery.delivered();
    }
  }

  /**
   * Ends a prompt's writing: commits what it appended, then drops a write failure still kept. Such
   * a failure came after the prompt's `session.idle` (the checkpoint of its last turn's end failing
   * late), and this commit has since sent again what it kept back, or failed with a newer error;
   * kept, it would stop the next prompt with an error that is no longer true. This commit's
   * failure, when no `session.error` came before the prompt's `session.idle`, is published as a
   * `session.error` (type `storage`) the store does not hold: every face says it, the SDK server
   * to the app too (it never learnt of it from the outcome). Resolves once every event of the
   * prompt reached the subscribers (or was dropped: held-delivery.ts).
   * @returns the storage error the prompt ends with: the one reported at its `session.idle` (the
   * log's `session.error` names it), else this commit's; `undefined` when its writes all went
   * through.
   */
  async endPrompt(): Promise<{ errorType: "storage"; message: string } | undefined> {
    const failed = this.#failedPrompt;
    this.#failedPrompt = undefined;
    try {
      await this.appender.commit({ endOfPrompt: true });
      this.#delivery.stored();
    } catch (error) {
      if (failed !== undefined) {
        // The error the log's `session.error` names, which stopped the prompt: a later failure
        // (the listing's metadata.json after events.jsonl) is not said instead (trial 47 F8).
        return failed;
      }
      const late = { errorType: "storage" as const, message: this.storageMessage(error) };
      const event = { type: "session.error" as const, data: late };
      this.handOn(createEnvelope(event, this.#writer.lastPersistedId), true);
      return late;
    } finally {
      this.#writeFailure = undefined;
      await this.#delivery.delivered();
    }
    return failed;
  }

  /**
   * `<location> could not be written (<error>): …`, for a prompt's error answer: the file or
   * database a `StorageError` names, else the appender's location (storage-error.ts); then that
   * every event written before is kept, or that the session was not saved, or not yet
   * (deferred-appender.ts `unsavedNote`; and what of it could not be removed,
   * `StorageError.leftBehind`).
   */
  storageMessage(failure: unknown): string {
    const left = failure instanceof StorageError ? failure.leftBehind : undefined;
    const kept =
      unsavedLog(this.appender) === undefined
        ? "every event written before is kept"
        : unsavedNote(this.appender, left);
    return `${storageProblem(failure, this.appender.location)}: the prompt was stopped; ${kept}`;
  }

  #fail(error: unknown, running: AbortController): void {
    this.#writeFailure ??= error;
    running.abort();
  }

  #reportWriteFailure(): SessionEvent {
    const failure = this.#writeFailure;
    this.#writeFailure = undefined;
    const message = this.storageMessage(failure);
    this.#failedPrompt = { errorType: "storage", message };
    return this.#writeIfPossible({
      type: "session.error",
      data: { errorType: "storage", message },
    });
  }

  /** Writes `input` if the store takes it now; its envelope either way. */
  #writeIfPossible(input: EventInput): SessionEvent {
    try {
      return this.#writer.write(input);
    } catch {
      return createEnvelope(input, this.#writer.lastPersistedId);
    }
  }
}
