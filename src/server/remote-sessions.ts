/**
 * Sessions served by another worker (issue 22; a store shared by workers, i.e. PostgreSQL). A
 * client of this server that resumes a session whose lease another live worker holds follows it
 * here: every persisted event from the resume on is sent to it as `session.event`, read through
 * the store's subscription (once each, in order; one subscription for all the apps of this server
 * that follow the session: remote-followers.ts); its `session.send`, `session.abort` and
 * permission answers (remote-questions.ts) go through the store's inbox to the owner, which applies them to its own session as if its client
 * had sent them (inbox-receiver.ts), and so does its resume's `settings_ignored` warning
 * (remote-warning.ts). Ephemeral events (streaming deltas) stay on the owner;
 * the follower sends its own `session.idle` where a prompt's stored events end (session/prompt-end.ts).
 * A session nobody holds is not followed: `session.resume` claims it here.
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type { SessionCreateResult } from "../protocol/copilot.js";
import { registerHandler } from "../session/follower-handler.js";
import { storeHasNo } from "../session/session-gone.js";
import type { ClientConnection, ServerContext } from "./connection.js";
import { ignoredSettingsWarning } from "./ignored-settings.js";
import {
  invalidParams,
  type PermissionAnswerParams,
  type SendParams,
  sessionDeleted,
} from "./params.js";
import { replyFor } from "./permissions.js";
import { type Follower, followedBy, followerOf, join, leave } from "./remote-followers.js";
import { FollowerWarning } from "./remote-warning.js";
import { bareModelId } from "./wire-events.js";

/** The client's `session.resume` params that say whether it answers permission questions. */
const handlesPermissions = z.looseObject({ requestPermission: z.boolean().optional() });

/**
 * `session.resume` of a session another live worker holds: follows it for `connection`, beside
 * any other app of this server that follows it (each gets every event from its resume on).
 * @returns the resume answer, or `undefined` when the session is not held by another worker
 * (the store has no inbox, nobody holds it, or this process does): resume it here.
 * @throws ResponseError `-32602` when the session cannot be read.
 */
export async function resumeRemote(
  connection: ClientConnection,
  sessionId: string,
  resumeParams: unknown,
): Promise<SessionCreateResult | undefined> {
  const { server } = connection;
  const { store } = server.host;
  if (store.inbox === undefined) {
    return undefined;
  }
  const holder = await store.holder(sessionId).catch(() => undefined);
  if (holder === undefined || holder === "unreadable" || holder.pid === process.pid) {
    return undefined;
  }
  const log = await store.read(sessionId).catch((error: unknown) => {
    throw invalidParams(`session.resume: session ${sessionId} (${errorMessage(error)})`);
  });
  const start = log.events.find((event) => event.type === "session.start");
  if (start?.type !== "session.start") {
    throw invalidParams(`session.resume: session ${sessionId} has no session.start event`);
  }
  await leave(server, sessionId, connection);
  const warning = new FollowerWarning(ignoredSettingsWarning("session.resume", resumeParams));
  await join(connection, start.data, log, { resumeParams, warning });
  // A client that registered a permission handler answers the owner's questions too.
  const registered = handlesPermissions.safeParse(resumeParams).data?.requestPermission
    ? await registerHandler(store.inbox, sessionId, server.host.env)
    : undefined;
  const joined = followerOf(connection, sessionId)?.follower;
  if (registered !== undefined && joined !== undefined) {
    joined.unregister = registered;
  } else {
    // It left meanwhile (its connection closed): its registration ends with it.
    await registered?.();
  }
  // Never rejects: closing the subscription and the handler's detach swallow their failures.
  void connection.closed.then(() => leave(server, sessionId, connection));
  // After the answer, as a local resume's warning: the app's session object exists to receive it.
  const { inbox } = store;
  setImmediate(() => void warning.say(connection, inbox, sessionId));
  return {
    sessionId,
    workspacePath: store.filesFolder(sessionId),
    startTime: start.data.startTime,
    isRemote: false,
    mode: server.defaultMode,
    capabilities: { ui: { elicitation: false } },
    modelState: { modelId: bareModelId(start.data.model) },
  };
}

/**
 * Whether `connection` follows `sessionId` here: a resume it makes to claim the session leaves
 * the events stored since the last one it got to the following ({@link sendToOwner}).
 */
export function followsHere(connection: ClientConnection, sessionId: string): boolean {
  return followerOf(connection, sessionId) !== undefined;
}

/**
 * `session.detach` / `session.destroy` of `sessionId` by `connection`: it stops following it here
 * (its owner watch and permission handler registration end; the store subscription too when it
 * was the last app following it). Nothing when it does not follow it.
 */
export async function stopFollowing(
  connection: ClientConnection,
  sessionId: string,
): Promise<void> {
  await leave(connection.server, sessionId, connection);
}

/**
 * Whether a resume `connection` makes to claim `sessionId`, which it follows here, must not say
 * its `settings_ignored` warning: its app has it from the following (remote-warning.ts).
 */
export function warnedWhileFollowing(connection: ClientConnection, sessionId: string): boolean {
  const follower = followerOf(connection, sessionId)?.follower;
  return follower !== undefined && !follower.warning.unsaid();
}

/**
 * Whether `connection`'s methods on `sessionId` go to its owner: it follows the session here. (An
 * app of this server that did not resume it is told to, as for a session not open here.)
 */
export function isRemote(connection: ClientConnection, sessionId: string): boolean {
  return followsHere(connection, sessionId);
}

/**
 * `session.abort` of a followed session: sent to the owner, which stops its turn. When no live
 * worker holds the session any more, nothing is running: nothing to do.
 */
export async function abortAtOwner(connection: ClientConnection, sessionId: string): Promise<void> {
  // The owner's abort drops its queued prompts, this client's among them.
  followerOf(connection, sessionId)?.follower.prompts.cancelWaiting();
  await connection.server.host.store.inbox?.post(sessionId, { kind: "abort", payload: null });
}

/**
 * `session.permissions.handlePendingPermissionRequest` of a followed session: the answer goes to
 * the owner through the inbox, which applies it like its own client's; the first answer wins
 * there, a later one is dropped without error.
 * @returns `false` when nothing was sent: the question is not open (answered already, as far as
 * this worker has read, or unknown) or no live worker holds the session.
 * @throws Error naming the decision kind when it is not one of Copilot's (as for a local answer).
 */
export async function answerAtOwner(
  server: ServerContext,
  params: PermissionAnswerParams,
): Promise<boolean> {
  replyFor(params.result);
  const { sessionId, requestId } = params;
  if (followedBy(server).get(sessionId)?.questions.isOpen(requestId) !== true) {
    return false;
  }
  const inbox = server.host.store.inbox;
  return (await inbox?.post(sessionId, { kind: "permission", payload: params })) !== undefined;
}

/**
 * `session.send` of a followed session: the prompt goes to the owner's inbox, once the events
 * stored before it were delivered (a prompt that ended already ends for this client as for a
 * local session's app, its idle not held for this prompt: remote-followers.ts). When no live
 * worker holds the session any more (it died, or closed the session), this worker claims it
 * (issue 22): the events stored meanwhile are delivered, `claim` resumes the session here with
 * the client's `session.resume` params, the events that stored are delivered too (every event
 * of the log reaches the client once, in order, whoever wrote it), the following stops, and the
 * prompt runs here.
 * @throws ResponseError `-32602` when the claim fails (another worker claimed it first).
 */
export async function sendToOwner(
  connection: ClientConnection,
  params: SendParams,
  claim: (resumeParams: unknown) => Promise<unknown>,
): Promise<{ messageId: string }> {
  const { server } = connection;
  const { sessionId } = params;
  const following = followerOf(connection, sessionId);
  const remote = following?.follower;
  // What the owner stored before this send is read first, as a local session's app has every
  // event told before its send arrives: a prompt that ended there already ends here too (its
  // idle is not held back for this prompt), however far the subscription's reading lags.
  const subscription = await following?.here.subscribed;
  await subscription?.readNow();
  const promptId = await postPrompt(server, params, remote);
  if (promptId !== undefined) {
    // The owner records it on the prompt's `user.message`: the app's sendAndWait finds it there.
    return { messageId: promptId };
  }
  await subscription?.readNow();
  remote?.ownerWatch.stop();
  try {
    await claim(remote?.resumeParams ?? { sessionId }).catch(async (error: unknown) => {
      if (remote === undefined || !(await foundDeleted(connection, sessionId))) {
        throw error;
      }
      throw sessionDeleted(sessionId);
    });
    // What the claim stored here (`session.resume`, interrupted results of the calls the owner
    // left open) reaches the client as every other event did: read from the log after the last
    // one it got, in order, before the prompt's own events (the claim sent it none of them).
    await subscription?.readNow();
  } finally {
    await leave(server, sessionId, connection);
  }
  const session = server.sessions.get(sessionId);
  if (session === undefined) {
    throw invalidParams(`session ${sessionId}: it could not be opened here`);
  }
  return { messageId: session.send(params) };
}

/**
 * Whether `sessionId` is known deleted here (`ServerContext.deleted`), or `connection` follows it
 * and the store has it no more: it was followed, so it existed, and an app deleted it; noted then,
 * so the app's later methods on it say so too (session-methods.ts `openSession`), and the
 * following ends.
 */
export async function foundDeleted(
  connection: ClientConnection,
  sessionId: string,
): Promise<boolean> {
  const { server } = connection;
  if (server.deleted.has(sessionId)) {
    return true;
  }
  if (!followsHere(connection, sessionId) || !(await storeHasNo(server.host.store, sessionId))) {
    return false;
  }
  server.deleted.add(sessionId);
  await leave(server, sessionId, connection);
  return true;
}

/**
 * Posts a followed session's prompt to its owner with an id, noted in `remote`'s prompts until
 * its stored events end. @returns the id, or `undefined` when nothing was sent: the owner closed
 * the session already (as far as `remote` has read: it would drop the prompt) or no live worker
 * holds it.
 */
async function postPrompt(
  server: ServerContext,
  params: SendParams,
  remote: Follower | undefined,
): Promise<string | undefined> {
  const inbox = server.host.store.inbox;
  if (inbox === undefined || remote === undefined || remote.prompts.ownerClosed) {
    return undefined;
  }
  const promptId = remote.prompts.add();
  const epoch = await inbox
    .post(params.sessionId, { kind: "prompt", payload: { ...params, promptId } })
    .catch((error: unknown) => {
      remote.prompts.remove(promptId);
      throw error;
    });
  if (epoch === undefined) {
    remote.prompts.remove(promptId);
    return undefined;
  }
  remote.prompts.addressed(promptId, epoch);
  return promptId;
}
