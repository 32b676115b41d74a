/**
 * The sessions an ACP connection followed on another worker (issue 22, remote-session.ts) that
 * were deleted meanwhile, by an app of any worker: every later request naming one answers
 * `-32002` saying so (errors.ts `sessionDeleted`). ACP v1 has no notice of a deletion
 * (`session_info_update` carries only title and updatedAt: /work/shared/reference/acp.md), so the
 * editor learns it at its next request.
 */

import * as acp from "@agentclientprotocol/sdk";
import { storeHasNo } from "../session/session-gone.js";
import type { SessionStore } from "../session/session-store.js";
import { sessionDeleted } from "./errors.js";

export class DeletedSessions {
  readonly #ids = new Set<string>();

  /** Notes `sessionId` deleted (the store's live events told: live-events.ts `onDeleted`). */
  add(sessionId: string): void {
    this.#ids.add(sessionId);
  }

  /** @throws `-32002` naming the deletion when `sessionId` was noted deleted. */
  refuse(sessionId: string): void {
    if (this.#ids.has(sessionId)) {
      throw sessionDeleted(sessionId);
    }
  }

  /**
   * A followed session's prompt failed with `error` (its claim found no log, the inbox refused):
   * when the store has the session no more, it was deleted before the live events told (a
   * follower reads it only then; the JSON-RPC errors of a prompt that ran are not checked).
   * @throws `-32002` naming the deletion (then noted), else `error`.
   */
  async failure(
    store: Pick<SessionStore, "read">,
    sessionId: string,
    error: unknown,
  ): Promise<never> {
    const answered = error instanceof acp.RequestError && error.code !== sessionDeleted("").code;
    if (!answered && (await storeHasNo(store, sessionId))) {
      this.add(sessionId);
    }
    this.refuse(sessionId);
    throw error;
  }
}
