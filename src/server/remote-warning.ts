/**
 * The `settings_ignored` warning of a `session.resume` through another worker (issue 22,
 * remote-sessions.ts): the app that follows a session another worker holds gets it once, as an app
 * resuming it here would (ignored-settings.ts). The follower sends it to the owner through the
 * inbox (`warning`), which records it as its own `session.warning`: the follower's app gets it
 * from the log with every other event, the owner's apps live, as when several apps share a
 * session here. When the owner takes no messages (a face that runs only its own prompts) or is
 * gone, the follower sends it to its app itself, not recorded (the log is the owner's). Claiming
 * the session later does not say it again, unless the owner never recorded it.
 */

import { z } from "zod";
import type { SessionEvent } from "../events/events.js";
import { ServerToClient } from "../protocol/copilot.js";
import { createEnvelope } from "../session/envelope.js";
import type { SessionInbox } from "../session/session-store.js";
import type { ClientConnection } from "./connection.js";
import type { WarningData } from "./ignored-settings.js";
import type { ServerSession } from "./server-session.js";

/** A follower's warning for its app, until its app has it. */
export class FollowerWarning {
  /** Whether the app has it, or it is on its way through the owner's log. */
  private sent = false;

  /** @param data the warning, or undefined when the resume asked nothing turnloop ignores. */
  constructor(private readonly data: WarningData | undefined) {}

  /**
   * Whether the app still lacks the warning: there is one, and it was not sent directly nor read
   * from the owner's log ({@link seen}). A claim of the session says it then.
   */
  unsaid(): boolean {
    return this.data !== undefined && !this.sent;
  }

  /** Notes a stored event sent to the app: the owner's record of this warning says it. */
  seen(event: SessionEvent): void {
    if (event.type === "session.warning" && event.data.message === this.data?.message) {
      this.sent = true;
    }
  }

  /**
   * Sends the warning to `sessionId`'s owner through `inbox`, or, when no owner takes it, to the
   * app on `connection` directly (ephemeral: it is not in the log). Never rejects.
   */
  async say(connection: ClientConnection, inbox: SessionInbox, sessionId: string): Promise<void> {
    const { data } = this;
    if (data === undefined) {
      return;
    }
    const posted = await inbox
      .post(sessionId, { kind: "warning", payload: data })
      .catch(() => undefined);
    if (posted !== undefined || this.sent) {
      return;
    }
    this.sent = true;
    const event = createEnvelope({ type: "session.warning", data }, null);
    connection.notify(ServerToClient.sessionEvent, {
      sessionId,
      event: { ...event, ephemeral: true },
    });
  }
}

const warningPayload = z.object({ warningType: z.string().min(1), message: z.string().min(1) });

/**
 * Records a follower's warning (an inbox `warning`) in `session`, as its own `session.warning`,
 * committed at once: the follower reads it from the store (a commit failure is the log's to
 * report at its next commit point).
 * @returns false when the payload is not a warning (nothing recorded).
 */
export function recordFollowerWarning(session: ServerSession, payload: unknown): boolean {
  const parsed = warningPayload.safeParse(payload);
  if (!parsed.success) {
    return false;
  }
  session.session.emit({ type: "session.warning", data: parsed.data });
  session.session.logForReaders().catch(() => undefined);
  return true;
}
