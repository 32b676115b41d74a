/**
 * An editor on a session whose owner dies (issue 22): worker A (a real server process) holds a
 * session and runs a prompt of its own client, held open by the model; `turnloop acp` on the same
 * database loaded the session. A is killed with SIGKILL once its open turn is stored.
 *
 * With the editor's own prompt queued on A (a `session/prompt`, waiting in A's queue): once the
 * ACP process sees A's process gone (same machine), the prompt is answered with an error saying so
 * (not left waiting), told first as turnloop's notice, never as the reply (src/acp/notices.ts: a
 * `notice` to a client that offered `session.notices`, a thought to any other; it was an agent
 * message), and the editor's next prompt claims the session and runs in the ACP process.
 *
 * With the editor only following (it sent nothing; src/acp/followed-holder.ts,
 * session/followed-leases.ts): before, it saw A's prompt and then nothing until some worker
 * reopened the session; now the ACP process's next lease check fences A's lease and the editor
 * gets turnloop's notice "Prompt interrupted" (ACP v1 has no other way to say it outside a
 * prompt's answer), once: its next prompt claims the session, whose repair is said as for any
 * claim, with no second notice.
 *
 * Both cases share one fake model and one database (a new session each).
 */

import { expect, test, vi } from "vitest";
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
  "an ACP editor on a session whose worker dies",
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

    test("A killed while running its own client's prompt, the editor only following: the editor gets one notice, then its prompt claims the session", async () => {
      const { fixture } = workers;
      await editorOnDyingOwner(workers, "notices", async (parts) => {
        const { editor, onA } = parts;
        const { sessionId } = onA;
        await killOwnerInItsPrompt(workers, parts);
        await vi.waitFor(
          () =>
            expect(editor.updates.map(({ sessionUpdate }) => sessionUpdate)).toContain("notice"),
          { timeout: 60_000, interval: 50 },
        );
        const message = `the worker running session ${sessionId} stopped (its process is gone) while running a prompt: it ended there unfinished`;
        expect(editor.updates.map(withoutIds)).toEqual([
          ...OWNER_PROMPT_SEEN,
          said("notices", { severity: "error", title: "Prompt interrupted", words: message }),
        ]);
        await claimAfterOwnerDied(editor, fixture.model, sessionId, "notices", "again");
      });
    }, 90_000);
  },
  QUICK_OWNER_CHECK,
);
