/**
 * The `inbox` table (issue 22): what a face on one worker sends to the worker holding a session's
 * lease (prompts, aborts and permission answers). A message is stored only while the session has a
 * live owner, addressed to that owner's lease (its `epoch`: a worker claiming the session later
 * never takes it), announced with `NOTIFY turnloop_inbox` after its insert, and taken by the owner
 * exactly once (the row is deleted as it is taken, locked with `SKIP LOCKED`), oldest first. The
 * owner also takes at every poll (notify.ts), so a lost notification only delays a message. Every
 * take also deletes the messages nobody took within {@link INBOX_EXPIRY_MS} (their owner died and
 * no worker claimed the session since), so the table holds only what waits. The owner answers a
 * prompt it refuses before storing anything of it on the same table: a `refusal` row
 * ({@link refusePrompt}) that no owner takes, which the prompt's follower takes
 * ({@link takeRefusals}) at its next check of the owner (session/owner-watch.ts).
 */

import { z } from "zod";
import type { ErrorType } from "../../events/event-parts.js";
import { validateSessionId } from "../paths.js";
import {
  type InboxMessage,
  InboxRefusedError,
  type PromptRefusal,
  type PromptWithdrawal,
  type RefusedPrompt,
  type SessionInbox,
} from "../session-store.js";
import type { Database } from "./database.js";
import { withdrawalCause } from "./fenced-here.js";
import { leaseGone, liveLeaseSql, toHolder, type Worker } from "./lease.js";
import type { CommitListener } from "./notify.js";
import { readJson, readText, storedJson, storedText } from "./stored-text.js";
import { unheldSessions } from "./unheld.js";

/** The channel announcing inbox messages; the payload is the session id. */
export const INBOX_CHANNEL = "turnloop_inbox";
/**
 * A message not taken within this many ms is deleted unread: a live owner takes at least at every
 * poll (2 s), and a dead one's lease (10 s) lets another worker claim the session long before.
 */
export const INBOX_EXPIRY_MS = 60_000;

/**
 * Stores `message` for the session's owner, when its lease says it takes messages
 * (`owner.takesInbox`, lease.ts): a face running one session itself never reads them.
 * @returns the epoch of the lease it was addressed to (only that lease takes it); `undefined`
 * when no live worker holds the session's lease, or, for a message other than a prompt, when its
 * holder takes no messages (nothing was stored). `leaseMs`: the sender's lease length, which
 * judges liveness (lease.ts `liveLeaseSql`).
 * @throws InboxRefusedError for a prompt to a holder that takes no messages.
 */
export async function postMessage(
  database: Database,
  sessionId: string,
  message: InboxMessage,
  leaseMs: number,
): Promise<number | undefined> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ owner: unknown; epoch: string | null }>(
      `WITH holder AS (
         SELECT id, epoch, owner FROM sessions
         WHERE id = $1 AND owner_id IS NOT NULL AND ${liveLeaseSql(leaseMs)}
       ), posted AS (
         INSERT INTO inbox (session_id, kind, payload, epoch)
         SELECT id, $2, $3, epoch FROM holder WHERE (owner->>'takesInbox') = 'true'
         RETURNING epoch
       )
       SELECT holder.owner, (SELECT epoch FROM posted) AS epoch FROM holder`,
      [sessionId, message.kind, storedJson(message.payload ?? null)],
    ),
  );
  const [row] = rows;
  if (row === undefined) {
    return undefined;
  }
  if (row.epoch === null) {
    if (message.kind === "prompt") {
      throw new InboxRefusedError(sessionId, toHolder(row.owner));
    }
    return undefined;
  }
  // After the insert's own transaction: a notification inside it would serialise commits.
  await database
    .run(() => pool.query("SELECT pg_notify($1, $2)", [INBOX_CHANNEL, sessionId]))
    .catch(() => undefined);
  return Number(row.epoch);
}

/** The kind of the rows an owner answers refused prompts with; no owner takes them. */
const REFUSAL_KIND = "refusal";

/**
 * Records the owner's refusal of the follower's prompt `promptId` to `sessionId` (a `refusal`
 * row, payload `{promptId, ...refusal}`), then announces it on {@link INBOX_CHANNEL}.
 */
export async function refusePrompt(
  database: Database,
  sessionId: string,
  promptId: string,
  refusal: PromptRefusal,
): Promise<void> {
  const pool = await database.pool();
  const payload = storedJson({ promptId, ...refusal });
  await database.run(() =>
    pool.query("INSERT INTO inbox (session_id, kind, payload) VALUES ($1, $2, $3)", [
      sessionId,
      REFUSAL_KIND,
      payload,
    ]),
  );
  await database
    .run(() => pool.query("SELECT pg_notify($1, $2)", [INBOX_CHANNEL, sessionId]))
    .catch(() => undefined);
}

/** A `refusal` row's payload, as {@link refusePrompt} stores it. */
const refusedPrompt = z.object({
  promptId: z.string(),
  error: z.object({
    errorType: z.custom<ErrorType>((value) => typeof value === "string"),
    message: z.string(),
  }),
  promptTooLarge: z.object({ estimatedTokens: z.number(), contextWindow: z.number() }).optional(),
});

/** Takes (deletes) the refusals of `sessionId`'s prompts among `promptIds`. */
export async function takeRefusals(
  database: Database,
  sessionId: string,
  promptIds: readonly string[],
): Promise<RefusedPrompt[]> {
  if (promptIds.length === 0) {
    return [];
  }
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ payload: unknown }>(
      `DELETE FROM inbox WHERE session_id = $1 AND kind = $2
         AND payload->>'promptId' = ANY($3::text[])
       RETURNING payload`,
      [sessionId, REFUSAL_KIND, [...promptIds].map(storedText)],
    ),
  );
  return rows.flatMap((row) => {
    const parsed = refusedPrompt.safeParse(readJson(row.payload));
    return parsed.success ? [parsed.data] : [];
  });
}

const INBOX_KINDS: ReadonlyArray<InboxMessage["kind"]> = [
  "prompt",
  "abort",
  "permission",
  "attach",
  "detach",
  "warning",
];

/**
 * Takes every waiting message sent to the leases `ownerId` holds, oldest first; each message is
 * taken once, by one worker, and deleted (or withdrawn by its sender first: {@link withdrawPrompts}). Deletes the expired messages of any session too
 * ({@link INBOX_EXPIRY_MS}), and rows an older version marked taken (`taken_at`).
 */
export async function takeMessages(
  database: Database,
  ownerId: string,
): Promise<Array<{ sessionId: string; message: InboxMessage }>> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ id: string; session_id: string; kind: string; payload: unknown }>(
      `WITH expired AS (
         DELETE FROM inbox WHERE id IN (
           SELECT id FROM inbox
           WHERE taken_at IS NOT NULL OR created_at < now() - make_interval(secs => $2)
           FOR UPDATE SKIP LOCKED
         )
       )
       DELETE FROM inbox WHERE id IN (
         SELECT inbox.id FROM inbox JOIN sessions ON sessions.id = inbox.session_id
         WHERE inbox.taken_at IS NULL AND inbox.kind <> '${REFUSAL_KIND}' AND inbox.created_at >= now() - make_interval(secs => $2)
           AND sessions.owner_id = $1
           AND (inbox.epoch IS NULL OR inbox.epoch = sessions.epoch)
         ORDER BY inbox.id FOR UPDATE OF inbox SKIP LOCKED
       ) RETURNING id, session_id, kind, payload`,
      [ownerId, INBOX_EXPIRY_MS / 1000],
    ),
  );
  return rows
    .sort((left, right) => Number(left.id) - Number(right.id))
    .flatMap((row) => {
      const kind = INBOX_KINDS.find((known) => known === row.kind);
      return kind === undefined
        ? []
        : [{ sessionId: row.session_id, message: { kind, payload: readJson(row.payload) } }];
    });
}

/**
 * A follower settles the prompts it sent to `sessionId` whose owner is gone (session/owner-watch.ts),
 * in one transaction: when no live worker holds the lease (lease.ts `leaseGone` says why:
 * `ownerStopped`), it is released with its epoch raised, so the worker that held it can neither
 * renew it nor store another event (it stops the session as any worker that lost its lease);
 * then the prompts among `promptIds` still
 * waiting in the inbox for an earlier lease are deleted unread. Every prompt is thus either taken
 * by its owner (`takeMessages`) or withdrawn here, never both (the rows are locked by whichever
 * deletes first). Rows of other followers are left alone. The result's `epoch` is the lease's
 * epoch after this (raised when it was fenced). `leaseMs`: the follower's lease length, which
 * judges liveness (lease.ts `liveLeaseSql`).
 */
export async function withdrawPrompts(
  database: Database,
  sessionId: string,
  promptIds: readonly string[],
  leaseMs: number,
): Promise<PromptWithdrawal> {
  return database.transaction(async (client) => {
    const { rows } = await client.query<{
      owner_id: string | null;
      owner: unknown;
      live: boolean;
      epoch: string;
    }>(
      `SELECT owner_id, owner, ${liveLeaseSql(leaseMs)} AS live, epoch
       FROM sessions WHERE id = $1 FOR UPDATE`,
      [sessionId],
    );
    const [row] = rows;
    if (row === undefined) {
      return { withdrawn: [], ownerStopped: "released", epoch: undefined };
    }
    const seen = leaseGone(row) ?? false;
    const fenced = seen !== false && row.owner_id !== null;
    if (fenced) {
      await client.query(
        `UPDATE sessions SET owner_id = NULL, owner = NULL, lease_until = NULL, status = 'idle',
           epoch = epoch + 1 WHERE id = $1`,
        [sessionId],
      );
    }
    const ownerStopped = withdrawalCause(database, sessionId, Number(row.epoch), seen, fenced);
    const epoch = Number(row.epoch) + (ownerStopped === false ? 0 : 1);
    const withdrawn = await client.query<{ prompt_id: string }>(
      `DELETE FROM inbox WHERE session_id = $1 AND kind = 'prompt'
         AND payload->>'promptId' = ANY($2::text[]) AND (epoch IS NULL OR epoch < $3)
       RETURNING payload->>'promptId' AS prompt_id`,
      [sessionId, [...promptIds].map(storedText), epoch],
    );
    const withdrawnIds = withdrawn.rows.map((deleted) => readText(deleted.prompt_id));
    return { withdrawn: withdrawnIds, ownerStopped, epoch };
  });
}

type Receiver = (sessionId: string, message: InboxMessage) => void;

/** Records in the leases `ownerId` holds that their holder takes its inbox (`owner.takesInbox`). */
async function markTakingLeases(database: Database, ownerId: string): Promise<void> {
  const pool = await database.pool();
  await database.run(() =>
    pool.query(
      `UPDATE sessions SET owner = owner || '{"takesInbox": true}'::jsonb
       WHERE owner_id = $1 AND owner IS NOT NULL`,
      [ownerId],
    ),
  );
}

/**
 * A worker's {@link SessionInbox}: posts with {@link postMessage}; while someone receives, takes
 * its messages at every inbox notification and poll (one take at a time; a wake-up during a take
 * makes one more).
 */
export class InboxReceiver implements SessionInbox {
  readonly #database: Database;
  readonly #worker: Worker;
  readonly #listener: CommitListener;
  readonly #receivers = new Set<Receiver>();
  #taking: Promise<void> | undefined;
  #again = false;
  #marking: Promise<void> = Promise.resolve();

  constructor(database: Database, worker: Worker, listener: CommitListener) {
    this.#database = database;
    this.#worker = worker;
    this.#listener = listener;
  }

  async post(sessionId: string, message: InboxMessage): Promise<number | undefined> {
    validateSessionId(sessionId);
    return postMessage(this.#database, sessionId, message, this.#worker.leaseMs);
  }

  async withdraw(sessionId: string, promptIds: readonly string[]): Promise<PromptWithdrawal> {
    validateSessionId(sessionId);
    return withdrawPrompts(this.#database, sessionId, promptIds, this.#worker.leaseMs);
  }

  async unheld(sessionIds: readonly string[]): Promise<string[]> {
    for (const sessionId of sessionIds) {
      validateSessionId(sessionId);
    }
    return unheldSessions(this.#database, sessionIds, this.#worker.leaseMs);
  }

  async refuse(sessionId: string, promptId: string, refusal: PromptRefusal): Promise<boolean> {
    return refusePrompt(this.#database, sessionId, promptId, refusal).then(
      () => true,
      () => false,
    );
  }

  async refusals(sessionId: string, promptIds: readonly string[]): Promise<RefusedPrompt[]> {
    validateSessionId(sessionId);
    return takeRefusals(this.#database, sessionId, promptIds);
  }

  async receive(onMessage: Receiver): Promise<{ close(): Promise<void> }> {
    const receiver: Receiver = (sessionId, message) => onMessage(sessionId, message);
    this.#receivers.add(receiver);
    // Before any await: the leases held already are marked, and a claim made meanwhile waits for
    // the mark ({@link marked}), so that no lease says it takes messages nobody reads.
    if (!this.#worker.takesInbox) {
      this.#worker.takesInbox = true;
      let failure: { error: unknown } | undefined;
      this.#marking = markTakingLeases(this.#database, this.#worker.id).catch((error: unknown) => {
        failure = { error };
        this.#receivers.delete(receiver);
        this.#worker.takesInbox = this.#receivers.size > 0;
        this.#worker.inboxFailed = !this.#worker.takesInbox;
      });
      await this.#marking;
      if (failure !== undefined) {
        throw failure.error;
      }
      this.#worker.inboxFailed = false;
    }
    this.#listener.start("inbox");
    this.wake();
    return {
      close: async () => {
        this.#receivers.delete(receiver);
        if (this.#receivers.size === 0) {
          await this.#listener.stop("inbox");
        }
      },
    };
  }

  /**
   * Settles once a {@link receive}'s marking of the leases (the first receiver's) has ended, well
   * or not; the store claims a lease only after it (store.ts), so a lease claimed while the mark
   * was under way says what the worker does once it ended: a failed mark leaves
   * {@link Worker.takesInbox} off, and a prompt to that lease is refused at once
   * (`InboxRefusedError`) instead of waiting unread until {@link INBOX_EXPIRY_MS}.
   */
  marked(): Promise<void> {
    return this.#marking;
  }

  /** Takes and delivers the waiting messages (coalesced with a take in flight). */
  wake(): void {
    if (this.#receivers.size === 0) {
      return;
    }
    if (this.#taking !== undefined) {
      this.#again = true;
      return;
    }
    this.#taking = this.#takeUntilQuiet().finally(() => {
      this.#taking = undefined;
    });
  }

  /** Stops delivering; waits for a take in flight. */
  async close(): Promise<void> {
    this.#receivers.clear();
    await this.#taking;
  }

  async #takeUntilQuiet(): Promise<void> {
    do {
      this.#again = false;
      let taken: Awaited<ReturnType<typeof takeMessages>>;
      try {
        taken = await takeMessages(this.#database, this.#worker.id);
      } catch {
        // The database is unreachable: the next notification or poll takes them.
        return;
      }
      for (const { sessionId, message } of taken) {
        for (const receiver of this.#receivers) {
          receiver(sessionId, message);
        }
      }
    } while (this.#again && this.#receivers.size > 0);
  }
}
