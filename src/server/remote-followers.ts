/**
 * The apps of this server following one session another worker holds (issue 22,
 * remote-sessions.ts), as a local session's apps share it (session-clients.ts): one store
 * subscription per session however many apps follow it, each stored event encoded once and sent to
 * every follower, in log order; each follower's own prompts, owner watch, permission handler
 * registration and `settings_ignored` warning; the owner's live events (session/live-events.ts)
 * to every follower too, and the session's deletion by another worker; the holder's lease, checked
 * for the apps that only follow (remote-holder-gone.ts); the subscription closed when the last
 * one leaves.
 */

import type { SessionEvent, SessionEventData } from "../events/events.js";
import { ServerToClient, type SessionLifecycleNotification } from "../protocol/copilot.js";
import { type OwnerWatch, watchOwner } from "../session/owner-watch.js";
import { type PromptEnd, PromptEnds, SentPrompts } from "../session/prompt-end.js";
import type { SessionSubscription } from "../session/session-follower.js";
import type { StoredLog } from "../session/session-store.js";
import { promptModeAfter } from "./client-link.js";
import type { ClientConnection, ServerContext } from "./connection.js";
import { notificationFrame } from "./notification-text.js";
import { FollowedEvents } from "./remote-events.js";
import { tellOnlyFollowing, watchHolder } from "./remote-holder-gone.js";
import { FollowedLiveEvents } from "./remote-live.js";
import { endedIdle, endPrompts, endRefused, type FollowedSession } from "./remote-prompt-end.js";
import { RemoteQuestions } from "./remote-questions.js";
import type { FollowerWarning } from "./remote-warning.js";

/** One app following a session here: what is its own (its connection, prompts, registration). */
export interface Follower {
  connection: ClientConnection;
  /** The client's `session.resume` params, to open the session here should its owner go. */
  resumeParams: unknown;
  /** The prompts this client sent to the owner, until their stored events end. */
  prompts: SentPrompts;
  /** Ends this client's permission handler registration with the owner (session/follower-handler.ts). */
  unregister: () => Promise<void>;
  /** Checks that the lease this client's prompts were sent to holds the session (owner-watch.ts). */
  ownerWatch: OwnerWatch;
  /** The resume's `settings_ignored` warning, until the app has it (remote-warning.ts). */
  warning: FollowerWarning;
}

/**
 * A session followed here, for every app that follows it, as a local session's apps share it
 * (session-clients.ts): one store subscription, each event encoded once and sent to every
 * follower; closed when the last one leaves.
 */
export interface FollowedHere {
  session: FollowedSession;
  /** The owner's permission questions, for the wire and to know which are still open. */
  questions: RemoteQuestions;
  /** The apps following it, in resume order (a second resume of one app keeps its place). */
  followers: Map<ClientConnection, Follower>;
  /** The store's subscription, from after the events the first follower's resume read. */
  subscribed: Promise<SessionSubscription>;
  /** Stops listening for the owner's live events (session/live-events.ts). */
  stopLive: () => void;
  /** Where the holder's prompts end, read from every stored event (whose prompt is open). */
  ends: PromptEnds;
  /** Stops checking the holder's lease for the apps that only follow (remote-holder-gone.ts). */
  stopWatch?: () => void;
}

/** The sessions each server follows for its clients, by session id. */
const followed = new WeakMap<ServerContext, Map<string, FollowedHere>>();

export function followedBy(server: ServerContext): Map<string, FollowedHere> {
  let sessions = followed.get(server);
  if (sessions === undefined) {
    sessions = new Map();
    followed.set(server, sessions);
  }
  return sessions;
}

/** What `connection` follows of `sessionId` here, or `undefined`. */
export function followerOf(connection: ClientConnection, sessionId: string) {
  const here = followedBy(connection.server).get(sessionId);
  const follower = here?.followers.get(connection);
  return here === undefined || follower === undefined ? undefined : { here, follower };
}

/**
 * Adds `connection` to the followers of the session `start` describes: the first one subscribes
 * to the store from after `log` (its events until now); a later one gets what the subscription
 * delivers from when it has read what is stored now.
 * @throws what subscribing throws (then nobody follows it through this subscription).
 */
export async function join(
  connection: ClientConnection,
  start: SessionEventData["session.start"],
  log: StoredLog,
  own: Pick<Follower, "resumeParams" | "warning">,
): Promise<void> {
  const sessions = followedBy(connection.server);
  const { sessionId } = start;
  const known = sessions.get(sessionId);
  if (known !== undefined) {
    await (await known.subscribed).readNow();
  }
  // Nothing awaited from here to the follower's place in the map: no event passes it by.
  const here = sessions.get(sessionId) ?? subscribe(connection.server, start, log);
  sessions.set(sessionId, here);
  const prompts = new SentPrompts();
  const ownerWatch = watchPrompts(connection, here, prompts);
  const unregister = async () => undefined;
  here.followers.set(connection, { connection, prompts, ownerWatch, unregister, ...own });
  try {
    await here.subscribed;
  } catch (error) {
    ownerWatch.stop();
    here.followers.delete(connection);
    if (sessions.get(sessionId) === here) {
      sessions.delete(sessionId);
      here.stopLive();
      here.stopWatch?.();
    }
    throw error;
  }
}

/**
 * Subscribes to the session `start` describes from after `log`: every stored event to each
 * follower's client as the owner's clients get it (remote-events.ts), encoded once for all, then
 * the end of each prompt a follower sent (to that follower).
 */
function subscribe(
  server: ServerContext,
  start: SessionEventData["session.start"],
  log: StoredLog,
): FollowedHere {
  const session: FollowedSession = { sessionId: start.sessionId, startTime: start.startTime };
  const questions = new RemoteQuestions(start.cwd);
  const events = new FollowedEvents(start, questions, (model) =>
    server.host.contextWindowOf(model),
  );
  const ends = new PromptEnds();
  for (const event of log.events) {
    events.past(event);
    ends.read(event);
    session.promptMode = promptModeAfter(event, session.promptMode);
  }
  const followers = new Map<ClientConnection, Follower>();
  const { live, stopLive } = listenLive(server, session.sessionId, followers, () => subscribed);
  const subscribed = server.host.store.subscribe(session.sessionId, log.nextSeq, (event) => {
    const frames = events.wire(event).map((wire) =>
      notificationFrame(ServerToClient.sessionEvent, {
        sessionId: session.sessionId,
        event: wire,
      }),
    );
    session.promptMode = promptModeAfter(event, session.promptMode);
    ends.read(event);
    // The owner's idle goes once to every follower it ends for (none of its prompts waits).
    const told: ClientConnection[] = [];
    const idleFor: ClientConnection[] = [];
    let ended: PromptEnd | undefined;
    for (const { connection, warning, prompts, ownerWatch } of [...followers.values()]) {
      for (const frame of frames) {
        connection.notifyFrame(frame);
      }
      warning.seen(event);
      const news = prompts.stored(event);
      if (news?.kind === "ended") {
        ended = news.end;
        told.push(connection);
        if (news.idle) {
          idleFor.push(connection);
        }
      } else {
        endPrompts(connection, session, news, event.id);
      }
      ownerWatch.stored(event);
    }
    if (ended !== undefined) {
      endedIdle(told, idleFor, session, ended, event.id);
    }
    live.stored(event);
  });
  const here: FollowedHere = { session, questions, followers, subscribed, stopLive, ends };
  here.stopWatch = watchHolder(server, here);
  return here;
}

/**
 * Listens for the live events the owner publishes for `sessionId` (session/live-events.ts), each
 * sent to every follower after the stored event it followed (remote-live.ts). @returns the place
 * that is told of each stored event sent, and what stops listening.
 */
function listenLive(
  server: ServerContext,
  sessionId: string,
  followers: ReadonlyMap<ClientConnection, Follower>,
  subscribed: () => Promise<SessionSubscription>,
): { live: FollowedLiveEvents; stopLive: () => void } {
  const send = (event: SessionEvent) => {
    const frame = notificationFrame(ServerToClient.sessionEvent, { sessionId, event });
    for (const { connection } of followers.values()) {
      connection.notifyFrame(frame);
    }
  };
  const live = new FollowedLiveEvents(send, async () => (await subscribed()).readNow());
  const stop = server.host.store.live?.listen(
    sessionId,
    (event) => live.live(event),
    () => followedDeleted(server, sessionId, followers),
  );
  return { live, stopLive: stop ?? (() => undefined) };
}

/**
 * Another worker deleted `sessionId` (session/live-events.ts): every app following it here is
 * told as the deleting server's apps are (`session.lifecycle` `session.deleted`, Copilot SDK
 * protocol: /work/shared/reference/copilot-protocol.md §1.4) and stops following it; their later
 * methods naming it say it was deleted (`ServerContext.deleted`, remote-sessions.ts `foundDeleted`).
 */
function followedDeleted(
  server: ServerContext,
  sessionId: string,
  followers: ReadonlyMap<ClientConnection, Follower>,
): void {
  if (followedBy(server).get(sessionId)?.followers !== followers) {
    return; // Told already, or nobody follows it through this subscription any more.
  }
  server.deleted.add(sessionId);
  const notice: SessionLifecycleNotification = { type: "session.deleted", sessionId };
  for (const { connection } of [...followers.values()]) {
    connection.notify(ServerToClient.sessionLifecycle, notice);
    leave(server, sessionId, connection).catch(() => undefined);
  }
}

/**
 * Watches, while `connection`'s `prompts` wait, the owner's lease (owner-watch.ts): a dead
 * owner's prompts end with an error, what it stored before first.
 */
function watchPrompts(
  connection: ClientConnection,
  here: FollowedHere,
  prompts: SentPrompts,
): OwnerWatch {
  const { store } = connection.server.host;
  const { session } = here;
  const onGone = async () => {
    const settled = await store.inbox?.withdraw(session.sessionId, prompts.unstarted());
    // What the owner stored before it died (or was fenced) ends its prompts first.
    await (await here.subscribed).readNow();
    const gone = prompts.settle(settled);
    if (gone.dropped.length > 0 || gone.interrupted !== undefined) {
      const { dropped, interrupted, cause } = gone;
      const news = { kind: "dropped", promptIds: dropped, cause, interrupted } as const;
      endPrompts(connection, session, news, null);
    }
    if (gone.cause !== "replaced") {
      // The apps here that only follow the session hear of the death now too.
      tellOnlyFollowing(here, gone.cause);
    }
  };
  return watchOwner(store, session.sessionId, () => prompts.waiting, onGone, {
    unended: () => prompts.unended(),
    onRefused: (refused) => endRefused(connection, session, prompts.refused(refused), prompts),
  });
}

/**
 * `connection` stops following `sessionId` (it closed, resumed it again, or claimed it); the
 * subscription closes when it was the last follower.
 */
export async function leave(
  server: ServerContext,
  sessionId: string,
  connection: ClientConnection,
): Promise<void> {
  const sessions = followedBy(server);
  const here = sessions.get(sessionId);
  const follower = here?.followers.get(connection);
  if (here === undefined || follower === undefined) {
    return;
  }
  here.followers.delete(connection);
  follower.ownerWatch.stop();
  if (here.followers.size === 0) {
    sessions.delete(sessionId);
    here.stopLive();
    here.stopWatch?.();
    const subscription = await here.subscribed.catch(() => undefined);
    await subscription?.close();
  }
  await follower.unregister();
}
