/**
 * The owner's permission questions, asked of the client of an ACP follower (issue 22,
 * remote-session.ts). The follower registers with the owner as a permission handler
 * (session/follower-handler.ts), so an owner none of whose own clients can answer still asks.
 * Each stored `permission.requested` becomes an ACP v1 `session/request_permission` with two
 * options, allow once and reject (the owner applies a decision for the session, which ACP's
 * `allow_always` would need, only for its own clients); the chosen option goes to the owner
 * through the inbox as a Copilot `session.permissions.handlePendingPermissionRequest` answer
 * (`approve-once` or `reject`), where the first answer wins. Once the question is answered
 * (its `permission.completed` stored), the request is abandoned with `$/cancel_request`.
 */

import * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import type { SessionInbox } from "../session/session-store.js";
import { callTitle } from "./tool-call-content.js";

/** The options offered, by id, with the owner's answer each stands for. */
const OPTIONS = [
  { option: { optionId: "allow_once", name: "Allow", kind: "allow_once" }, kind: "approve-once" },
  { option: { optionId: "reject_once", name: "Reject", kind: "reject_once" }, kind: "reject" },
] as const;

/** The open questions of one followed session, and how to ask and answer them. */
export class RemotePermissions {
  readonly #client: acp.AgentContext;
  readonly #sessionId: string;
  readonly #inbox: SessionInbox;
  /** The questions asked of the client and not answered yet, by request id. */
  readonly #open = new Map<string, AbortController>();

  constructor(client: acp.AgentContext, sessionId: string, inbox: SessionInbox) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#inbox = inbox;
  }

  /** Asks the client an owner's question (`permission.requested`); abandons an answered one. */
  stored(event: SessionEvent): void {
    if (event.type === "permission.requested") {
      // Never rejects: #ask catches a lost connection or an abandoned question.
      void this.#ask(event.data);
    } else if (event.type === "permission.completed") {
      this.#open.get(event.data.requestId)?.abort();
    }
  }

  /** Abandons every open question (the session is no longer followed here). */
  close(): void {
    for (const controller of this.#open.values()) {
      controller.abort();
    }
  }

  async #ask(question: { requestId: string; toolCallId: string; title: string }): Promise<void> {
    const controller = new AbortController();
    this.#open.set(question.requestId, controller);
    const params: acp.RequestPermissionRequest = {
      sessionId: this.#sessionId,
      toolCall: {
        toolCallId: question.toolCallId,
        title: callTitle(question.title),
        status: "pending",
      },
      options: OPTIONS.map(({ option }) => ({ ...option })),
    };
    try {
      const response = await this.#client.request(
        acp.methods.client.session.requestPermission,
        params,
        { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
      );
      const outcome = response.outcome;
      const chosen =
        outcome.outcome === "selected"
          ? OPTIONS.find(({ option }) => option.optionId === outcome.optionId)
          : undefined;
      if (chosen === undefined || controller.signal.aborted) {
        // Cancelled (the client cancels its prompt too), answered already, or not an option.
        return;
      }
      const result = { kind: chosen.kind };
      const payload = { sessionId: this.#sessionId, requestId: question.requestId, result };
      await this.#inbox.post(this.#sessionId, { kind: "permission", payload });
    } catch {
      // Abandoned, or the connection closed: the owner denies once the registration expires.
    } finally {
      this.#open.delete(question.requestId);
    }
  }
}
