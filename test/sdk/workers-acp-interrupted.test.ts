/**
 * An ACP follower's prompt running on a worker that dies (issue 22; the "Prompt interrupted" notice
 * of src/acp/remote-session.ts, README "turnloop acp follows held sessions too"): worker A (a real
 * server process) holds a session; `turnloop acp` on the same database loads it and sends a
 * `session/prompt`, which A takes and starts (its model request is in flight); A is killed with
 * SIGKILL. Once A's process is seen gone, the prompt fails with a `-32603` error saying it ended there
 * unfinished, told first as turnloop's notice "Prompt interrupted" (a `notice` to a client that
 * offered `session.notices`, a thought to any other), never as the reply; the editor's next
 * prompt claims the session, whose open turn is repaired as interrupted, and runs in the ACP
 * process.
 */

import { expect, test } from "vitest";
import {
  claimAfterOwnerDied,
  editorOnDyingOwner,
  killOwnerMidTurn,
  said,
  withoutIds,
} from "./workers-acp-support.js";
import { describeWorkers, holdAnswers, QUICK_OWNER_CHECK } from "./workers-support.js";

describeWorkers(
  "an ACP follower's prompt running on a worker that dies",
  (workers) => {
    test.for(["notices", "none"] as const)(
      "A killed while it runs the editor's prompt: the prompt fails as interrupted, the next runs in the ACP process (offer: %s)",
      { timeout: 90_000 },
      async (offer) => {
        const { fixture, env } = workers;
        await editorOnDyingOwner(workers, offer, async ({ editor, workerA, onA }) => {
          const { sessionId } = onA;
          const requested = holdAnswers(fixture.model);
          const waited = editor.promptSettled(sessionId, "the editor's long prompt");
          // A took the editor's prompt and started it: its model request is in flight.
          await requested.opened;
          await killOwnerMidTurn(env.TURNLOOP_DATABASE_URL ?? "", sessionId, workerA);
          const message = `the worker running session ${sessionId} stopped (its process is gone) while running this prompt: it ended there unfinished`;
          expect(await waited).toEqual({ error: { code: -32603, message } });
          expect(editor.updates.map(withoutIds)).toEqual([
            // The editor shows its own prompt; the title it gave the session is news.
            {
              sessionUpdate: "session_info_update",
              title: "the editor's long prompt",
              updatedAt: "<time>",
            },
            said(offer, { severity: "error", title: "Prompt interrupted", words: message }),
          ]);
          await claimAfterOwnerDied(editor, fixture.model, sessionId, offer, "again");
        });
      },
    );
  },
  QUICK_OWNER_CHECK,
);
