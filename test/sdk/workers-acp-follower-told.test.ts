/**
 * An editor that only follows a session another worker holds is told when that owner dies (issue
 * 22; src/acp/followed-holder.ts, session/followed-leases.ts): worker A (a real server process)
 * runs a prompt of its own client, held open by the model; `turnloop acp` on the same database
 * loaded the session and sent nothing. A is killed with SIGKILL once its open turn is stored.
 * Before, the editor saw A's prompt and then nothing until some worker reopened the session; now
 * the ACP process's next lease check fences A's lease and the editor gets turnloop's notice
 * "Prompt interrupted" (ACP v1 has no other way to say it outside a prompt's answer), once: its
 * next prompt claims the session, whose repair is said as for any claim, with no second notice.
 */

import { expect, test, vi } from "vitest";
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
  "an editor only following a session whose owner dies",
  (workers) => {
    test("A killed while running its own client's prompt: the editor gets one notice, then its prompt claims the session", async () => {
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
