/**
 * A session whose writer lease is held only while it writes (issue 25: a second process resuming
 * a session the SDK server of another process has open). The holder lets the lease go once the
 * session is idle (no hold: no prompt running, nothing queued, every event committed) and then
 * follows the log (`SessionStore.subscribe`), so events another process appends reach its
 * session (folded, and sent to its clients). Before it writes again it takes the lease back,
 * waiting while another process's prompt holds it, and first delivers what was appended
 * meanwhile; two processes never append at once, as the lease is the store's own (a dead
 * holder's is taken over as on any open). While idle the holder keeps the lease held idle
 * (`SessionAppender.closeIdle`, session-lock.ts): another process that lets go when idle may take
 * it, while the terminal, `-p`, ACP and a delete are refused as long as the session is open here.
 *
 * An event appended while the lease is let go waits in memory, in order, until the lease is
 * taken back (an idle mode change while another process runs a prompt): it is then written
 * after the other process's events, its `parentId` pointing at the last of them. Until then it is
 * in no log, so the appender holds it back (`holdsBack`): the session hands it to its clients once
 * a commit stored it, as stored (`storedVersion`), after the other process's events
 * (held-delivery.ts). One the store refuses (a full disk) waits for the next commit; a close
 * that still cannot write it names what is lost (storage-error.ts `HeldBackLostError`), which the
 * server says on stderr, and gives the lease up all the same.
 *
 * This module takes the lease and hands the session what the appender follows; the appender
 * itself (idle-lease-appender.ts) loads by `import()` when a session is opened to be let go when
 * idle (the SDK server), so the other faces never read it.
 */

import type { SessionEvent } from "../events/events.js";
import type { IdleLeaseAppender } from "./idle-lease-appender.js";
import type { SessionJournal } from "./session-journal.js";
import type {
  LeaseOptions,
  OpenedSession,
  SessionAppender,
  SessionStore,
} from "./session-store.js";

/**
 * Receives each event another process appended, in order, once each, and an ephemeral
 * `session.idle` after the last event of each of its prompts (prompt-end.ts), as this process's
 * own prompts end with one.
 */
export type OthersListener = (event: SessionEvent) => void;

/**
 * The appender of a new session `sessionId`; with `releaseWhenIdle`, an {@link IdleLeaseAppender}.
 * @throws as `SessionStore.create`.
 */
export async function createAppender(
  store: SessionStore,
  sessionId: string,
  releaseWhenIdle: boolean,
): Promise<SessionAppender> {
  const created = await takeLease(store, releaseWhenIdle, async (whenIdle) => ({
    appender: await store.create(sessionId, { releasesWhenIdle: whenIdle }),
    log: { events: [], seqs: [], repaired: [], nextSeq: 1 },
  }));
  return created.appender;
}

/**
 * Opens `sessionId` for appending; with `releaseWhenIdle`, through idle-lease-appender.ts
 * `openWhenReleased` and with an {@link IdleLeaseAppender}. `keep`: as the store's `LeaseOptions.keep`.
 * @throws as `SessionStore.open`.
 */
export async function openAppender(
  store: SessionStore,
  sessionId: string,
  releaseWhenIdle: boolean,
  keep?: LeaseOptions["keep"],
): Promise<OpenedSession> {
  const lease = keep === undefined ? {} : { keep };
  if (!releaseWhenIdle) {
    return store.open(sessionId, lease);
  }
  const { openWhenReleased } = await import("./idle-lease-appender.js");
  return takeLease(store, true, () => openWhenReleased(store, sessionId, undefined, lease));
}

/**
 * The appenders {@link takeLease} made, each its own key: {@link followOthers} tells them from the
 * others without loading their class.
 */
const following = new WeakMap<SessionAppender, IdleLeaseAppender>();

/**
 * What {@link createAppender} and {@link openAppender} share: `take` the lease, to be let go when
 * idle when `releaseWhenIdle` (its `whenIdle`); then, and only then, its appender wrapped in an
 * {@link IdleLeaseAppender} that appends after the `log` it took.
 * @throws what `take` throws.
 */
async function takeLease(
  store: SessionStore,
  releaseWhenIdle: boolean,
  take: (whenIdle: boolean) => Promise<OpenedSession>,
): Promise<OpenedSession> {
  const taken = await take(releaseWhenIdle);
  if (!releaseWhenIdle) {
    return taken;
  }
  const { appender, log } = taken;
  const stored = { nextSeq: log.nextSeq, lastId: log.events.at(-1)?.id ?? null };
  const { IdleLeaseAppender } = await import("./idle-lease-appender.js");
  const idle = new IdleLeaseAppender(store, appender, stored);
  following.set(idle, idle);
  return { appender: idle, log };
}

/**
 * When `appender` is an {@link IdleLeaseAppender}: the events another process appends are
 * delivered (`deliver`) as if emitted here, and `journal` chains the next event after them.
 */
export function followOthers(
  appender: SessionAppender,
  journal: Pick<SessionJournal, "follow">,
  deliver: (event: SessionEvent) => void,
): void {
  const idle = following.get(appender);
  if (idle !== undefined) {
    idle.listen((event) => {
      journal.follow(idle.lastEventId, event);
      deliver(event);
    });
  }
}
