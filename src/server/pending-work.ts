/**
 * Pending work, as the Copilot SDK names it (`continuePendingWork` of `session.resume`, the
 * SDK's `pending_work_resume.e2e.test.ts`): a call of an app's tool or a permission question
 * waiting for an app when the last app attached to the session goes away (its connection lost,
 * its process killed). The session then stays open in this server with that work waiting, instead
 * of being cancelled and closed; a later `session.resume`
 * - with `continuePendingWork: true` keeps it waiting and sends the resuming app every question
 *   still open (`permission.requested`, `external_tool.requested`) again, as the Copilot SDK's
 *   `ResumeSessionConfig.continuePendingWork` says the runtime does ("re-emits
 *   `permission.requested` so the registered `onPermissionRequest` handler can re-prompt"): its
 *   handlers answer them, or it answers by request id (`session.tools.handlePendingToolCall`,
 *   `session.permissions.handlePendingPermissionRequest`; `session.permissions.pendingRequests`
 *   lists the open questions), and the prompt goes on;
 * - without it, cancels it as a cancel does (interrupted results, cancelled questions), so the
 *   session is ready for new prompts; a resume that joins apps still attached changes nothing.
 * A session reopened from its log (its server stopped) has no pending work: Session.resume gives
 * its open calls interrupted results.
 */

import type { SessionEvent, SessionEventOf } from "../events/events.js";
import { ServerToClient } from "../protocol/copilot.js";
import type { ClientLink } from "./client-link.js";
import type { ServerSession } from "./server-session.js";

/**
 * The requests of one session waiting for an app (permission questions, calls of the apps'
 * tools), each as the wire showed it, in the order they were asked: what a resume with
 * `continuePendingWork: true` sends again.
 */
export class OpenRequests {
  /** Each open request's wire event, and the tool's name for a call of an app's tool. */
  private readonly open = new Map<string, { wire: object; toolName?: string }>();

  /** Keeps `wire` (`event` as sent) while its request is open; its answer's event forgets it. */
  see(event: SessionEvent, wire: object): void {
    switch (event.type) {
      case "permission.requested":
        this.open.set(event.data.requestId, { wire });
        return;
      case "external_tool.requested":
        this.open.set(event.data.requestId, { wire, toolName: event.data.toolName });
        return;
      case "permission.completed":
      case "external_tool.completed":
        this.open.delete(event.data.requestId);
        return;
      default:
        return;
    }
  }

  /**
   * Sends the requests open now to `link` once the current request is answered (the app's session
   * object then exists to take them), those answered meanwhile left out, and the calls of a tool
   * `link` may not be asked to run (`mayBeAsked(toolName)` false: another app runs the tool
   * `link` registered too, session-clients.ts `mayBeAsked`).
   */
  resendLater(
    sessionId: string,
    link: ClientLink,
    mayBeAsked: (toolName: string) => boolean,
  ): void {
    const asked = [...this.open];
    setImmediate(() => {
      for (const [requestId, { wire, toolName }] of asked) {
        if (this.open.has(requestId) && (toolName === undefined || mayBeAsked(toolName))) {
          link.notify(ServerToClient.sessionEvent, { sessionId, event: wire });
        }
      }
    });
  }

  /** The open calls of apps' tools: request id, tool name and the wire event. */
  *toolCalls(): Generator<{ requestId: string; toolName: string; wire: object }> {
    for (const [requestId, { wire, toolName }] of this.open) {
      if (toolName !== undefined) {
        yield { requestId, toolName, wire };
      }
    }
  }
}

/** What of a served session holding work for a resume needs. */
type Holder = Pick<ServerSession, "id" | "toolCalls" | "permissions">;

/**
 * Keeps every call and question waiting for an app for a resume: they are not failed when the
 * apps attached later do not register the tool or a permission handler.
 * @returns how many wait.
 */
function holdWaiting(served: Holder): number {
  return served.toolCalls.holdAll() + served.permissions.holdAll();
}

/**
 * The last app left `served`: keeps what waits for an app for a resume, saying so on the
 * server's log (stderr).
 * @returns whether anything waits (then the session stays open).
 */
export function holdForResume(served: Holder, log: (message: string) => void): boolean {
  const waiting = holdWaiting(served);
  if (waiting > 0) {
    log(
      `session ${served.id}: the last app left while ${waiting} ${waiting === 1 ? "request" : "requests"} waited for an app; kept open for a resume (continuePendingWork)`,
    );
  }
  return waiting > 0;
}

/**
 * A `session.resume` of `served`, open here, before the app attaches: work kept for a resume
 * goes on with `continuePendingWork: true` (and what waits now is kept for this app too), else
 * is cancelled. When the app says `continuePendingWork`, a `session.resume` event records it with
 * `sessionWasActive`: whether a prompt was running or waiting for an app when it resumed (the
 * Copilot SDK's `ResumeData`; the Copilot CLI records one at every resume, turnloop at a join only
 * then, so that apps joining as before see the events they saw).
 */
export async function resumeHere(
  served: ServerSession,
  continuePendingWork: boolean | undefined,
): Promise<void> {
  const sessionWasActive = served.running;
  const cancel = served.heldForResume && continuePendingWork !== true;
  served.heldForResume = false;
  if (continuePendingWork === true) {
    holdWaiting(served);
  }
  if (cancel) {
    await served.abort("a resume without continuePendingWork");
  }
  if (continuePendingWork === undefined) {
    return;
  }
  const data: SessionEventOf<"session.resume">["data"] = {
    resumeTime: new Date().toISOString(),
    // What a full read of the log would count, without reading it (session-writer.ts).
    eventCount: served.session.journal.storedCount,
    repaired: [],
    continuePendingWork,
    sessionWasActive,
  };
  served.session.emit({ type: "session.resume", data });
}
