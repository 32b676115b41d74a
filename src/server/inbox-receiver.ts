/**
 * The owner's side of sessions served by several workers (issue 22, remote-sessions.ts has the
 * followers'): the messages faces on other workers send to the sessions this server holds,
 * through the store's inbox, applied as if this server's own client had sent them.
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type { PromptBlock } from "../events/events.js";
import { FOLLOWER_EXPIRY_MS } from "../session/follower-handler.js";
import type { InboxMessage, PromptRefusal, SessionInbox } from "../session/session-store.js";
import type { ServerContext } from "./connection.js";
import { permissionAnswerParams, sendParams } from "./params.js";
import { recordFollowerWarning } from "./remote-warning.js";
import type { ServerSession } from "./server-session.js";

/** The inbox receivers started, one per server. */
const receiving = new WeakSet<ServerContext>();

/**
 * Starts applying the inbox messages sent to this server's sessions by faces on other workers,
 * once per server (a no-op without a shared store): a prompt as `session.send`, an abort as
 * `session.abort`. A message for a session no longer served here, or not valid, is logged and
 * dropped; but a follower's `attach` or `detach` for a session no longer served here is dropped
 * unlogged (a follower's stop, not a user's concern).
 */
export function receiveInbox(server: ServerContext): void {
  const inbox: SessionInbox | undefined = server.host.store.inbox;
  if (inbox === undefined || receiving.has(server)) {
    return;
  }
  receiving.add(server);
  inbox
    .receive((sessionId, message) => applyMessage(server, sessionId, message))
    .catch((error: unknown) => {
      receiving.delete(server);
      server.log(`the inbox of other workers' requests is not read: ${errorMessage(error)}`);
    });
}

/**
 * A prompt in the inbox: `session.send`'s params, the id its sender gave it, and the prompt's
 * blocks as its user gave them when `prompt` is more (an ACP follower's `resource_link`s and
 * `resource`s: acp/remote-session.ts), recorded as a local prompt's (`user.message.contentBlocks`),
 * and what the model got only a note of (`notSent`: an audio clip), warned of as a local prompt's.
 */
const inboxPrompt = sendParams.extend({
  promptId: z.string().min(1).optional(),
  contentBlocks: z.array(z.custom<PromptBlock>(isPromptBlock)).optional(),
  notSent: z.array(z.string().min(1)).optional(),
});

function applyMessage(server: ServerContext, sessionId: string, message: InboxMessage): void {
  const session = server.sessions.get(sessionId);
  if (session === undefined || session.closing) {
    // A follower's attach or detach has nothing to do here then (a detach comes whenever a
    // follower's app stops, often as the owner's does); what carries a user's request is logged.
    if (message.kind !== "attach" && message.kind !== "detach") {
      server.log(`a ${message.kind} for session ${sessionId}, no longer served here, was dropped`);
    }
    if (message.kind === "prompt") {
      const reason = `session ${sessionId} is closing on the worker that held it; nothing of the prompt was stored: send it again`;
      refuseUnread(server, sessionId, message.payload, reason);
    }
    return;
  }
  switch (message.kind) {
    case "prompt":
      applyPrompt(server, session, message.payload);
      return;
    case "abort":
      session.abort().catch(() => undefined);
      return;
    case "permission":
      applyAnswer(server, session, message.payload);
      return;
    case "warning":
      if (!recordFollowerWarning(session, message.payload)) {
        server.log(`a warning for session ${sessionId} from another worker was not valid`);
      }
      return;
    case "attach":
    case "detach": {
      const parsed = followerMessage.safeParse(message.payload);
      if (!parsed.success) {
        server.log(`a follower's ${message.kind} for session ${sessionId} was not valid`);
      } else if (message.kind === "attach") {
        session.clients.attachFollower(parsed.data.followerId, parsed.data.expiresInMs ?? 0);
      } else {
        session.clients.removeFollower(parsed.data.followerId);
      }
      return;
    }
    default: {
      // inbox.ts reads only the kinds it knows; a new kind fails to compile here.
      const unhandled: never = message.kind;
      void unhandled;
    }
  }
}

/**
 * Queues a follower's prompt as `session.send`; one that is not valid or that the session refuses
 * is logged and refused to its follower (when it names its id), as one the loop refuses unstored
 * (send-job.ts): the follower's wait ends with the reason.
 */
function applyPrompt(server: ServerContext, session: ServerSession, payload: unknown): void {
  const parsed = inboxPrompt.safeParse(payload);
  if (!parsed.success) {
    server.log(`a prompt for session ${session.id} from another worker was not valid`);
    const reason = `the worker that holds session ${session.id} could not read the prompt (${parsed.error.issues[0]?.path.join(".") || "payload"}: ${parsed.error.issues[0]?.message ?? "not valid"}); nothing of it was stored`;
    refuseUnread(server, session.id, payload, reason);
    return;
  }
  const { promptId, contentBlocks, notSent, ...params } = parsed.data;
  const refuse = (refusal: PromptRefusal) => {
    if (promptId !== undefined) {
      tellRefusal(server, session.id, promptId, refusal);
    }
  };
  try {
    session.send(params, { promptId, contentBlocks, notSent, refuse });
  } catch (error) {
    server.log(`a prompt for session ${session.id} was refused: ${errorMessage(error)}`);
    const reason = `the worker that holds session ${session.id} refused the prompt: ${errorMessage(error)}; nothing of it was stored`;
    refuse({ error: { errorType: "invalid_request", message: reason } });
  }
}

/** Refuses a prompt not queued to its follower, when its payload names the prompt's id. */
function refuseUnread(
  server: ServerContext,
  sessionId: string,
  payload: unknown,
  message: string,
): void {
  const parsed = z.object({ promptId: z.string().min(1) }).safeParse(payload);
  if (parsed.success) {
    tellRefusal(server, sessionId, parsed.data.promptId, {
      error: { errorType: "invalid_request", message },
    });
  }
}

/** Records `refusal` for the follower of `promptId` (session-store.ts `SessionInbox.refuse`). */
function tellRefusal(
  server: ServerContext,
  sessionId: string,
  promptId: string,
  refusal: PromptRefusal,
): void {
  void server.host.store.inbox?.refuse(sessionId, promptId, refusal).then((recorded) => {
    if (!recorded) {
      server.log(`the refusal of a prompt for session ${sessionId} could not be recorded`);
    }
  });
}

/** A block as `user.message.contentBlocks` keeps it: an object with a `type`. */
function isPromptBlock(value: unknown): value is PromptBlock {
  return (
    typeof value === "object" && value !== null && typeof Reflect.get(value, "type") === "string"
  );
}

/** A follower's `attach` / `detach` (session/follower-handler.ts). */
const followerMessage = z.object({
  followerId: z.string().min(1),
  expiresInMs: z.number().int().positive().max(FOLLOWER_EXPIRY_MS).optional(),
});

/** A permission answer from another worker, applied as the local client's would be. */
function applyAnswer(server: ServerContext, session: ServerSession, payload: unknown): void {
  const parsed = permissionAnswerParams.safeParse(payload);
  if (!parsed.success) {
    server.log(`a permission answer for session ${session.id} from another worker was not valid`);
    return;
  }
  try {
    // `false`: answered already (the first answer wins) or no longer asked: nothing to do.
    session.answerPermission(parsed.data.requestId, parsed.data.result);
  } catch (error) {
    server.log(`a permission answer for session ${session.id} was refused: ${errorMessage(error)}`);
  }
}
