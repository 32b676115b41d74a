/**
 * An ACP follower's prompt queued on a worker that dies (issue 22): worker A (a real server
 * process) holds a session and runs its own client's prompt; `turnloop acp` on the same database
 * loads the session and sends a `session/prompt`, which waits in A's queue; A is killed with
 * SIGKILL. Once the ACP process sees A's process gone (same machine), the prompt is answered with
 * an error saying so (not left
 * waiting), told first as turnloop's notice, never as the reply (src/acp/notices.ts: a `notice`
 * to a client that offered `session.notices`, a thought to any other; it was an agent message),
 * and the editor's next prompt claims the session and runs in the ACP process.
 */

import { expect, test } from "vitest";
import { gate } from "../support/gate.js";
import {
  claimAfterOwnerDied,
  editorOnDyingOwner,
  killOwnerInItsPrompt,
  OWNER_PROMPT_SEEN,
  said,
  withoutIds,
} from "./workers-acp-support.js";
import { describeWorkers, QUICK_OWNER_CHECK } from "./workers-support.js";

describeWorkers(
  "an ACP follower's prompt on a worker that dies",
  (workers) => {
    test.for(["notices", "none"] as const)(
      "A killed with the editor's prompt queued: the prompt ends with an error, the next runs in the ACP process (offer: %s)",
      { timeout: 90_000 },
      async (offer) => {
        const { fixture } = workers;
        await editorOnDyingOwner(workers, offer, async (parts) => {
          const { editor, onA } = parts;
          const { sessionId } = onA;
          const queuedOnA = gate();
          onA.on((event) => {
            if (event.type === "pending_messages.modified") {
              queuedOnA.open();
            }
          });
          let waited: ReturnType<typeof editor.promptSettled> | undefined;
          await killOwnerInItsPrompt(workers, parts, async () => {
            waited = editor.promptSettled(sessionId, "queued behind A's");
            await queuedOnA.opened;
          });
          const message = `the worker running session ${sessionId} stopped (its process is gone) before this prompt started; send it again to run it here`;
          expect(await waited).toEqual({ error: { code: -32603, message } });
          // A stored its prompt before asking the model (DESIGN.md, SessionStore), and nothing after
          // it (no turn ended): the editor sees that prompt, its title, and why its own prompt ended.
          expect(editor.updates.map(withoutIds)).toEqual([
            ...OWNER_PROMPT_SEEN,
            said(offer, { severity: "error", title: "Prompt not run", words: message }),
          ]);
          await claimAfterOwnerDied(editor, fixture.model, sessionId, offer, "queued behind A's");
        });
      },
    );
  },
  QUICK_OWNER_CHECK,
);
