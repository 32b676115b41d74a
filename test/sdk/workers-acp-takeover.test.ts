/**
 * An ACP follower's prompt unread when its owner dies and another worker claims the session
 * before the follower checks the lease (issue 22; the SDK server's case is
 * workers-takeover-unread.test.ts): worker A holds a session; `turnloop acp` on the same database
 * loads it and sends a `session/prompt` while A is frozen, so it waits in the inbox addressed to
 * A's lease; the ACP process is frozen too while A is killed and worker B's own client claims the
 * session and runs a prompt. Once the ACP process wakes, its prompt ends with an error saying to
 * send it again (not left waiting), and the resend runs on B, once.
 */

import { test } from "vitest";
import { expectToldThenResent, startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers, promptInInbox } from "./workers-support.js";

describeWorkers(
  "an ACP follower's unread prompt when another worker claims the session first",
  (workers) => {
    test("A frozen then killed with the editor's prompt unread, B claims: the prompt ends with an error, the resend runs on B", async () => {
      const { fixture, env } = workers;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const { sessionId } = onA;
      const prompt = "sent while A froze";
      const editor = startAcpAgent(env, fixture.cwd);
      const inbox = await promptInInbox(env.TURNLOOP_DATABASE_URL ?? "");
      try {
        await editor.load(sessionId);
        const beforePrompt = editor.updates.length;
        workerA.process.kill("SIGSTOP");
        const waited = editor.promptSettled(sessionId, prompt);
        const sent = { sessionId, prompt, beforePrompt, waited };
        await inbox.stored;
        editor.child.kill("SIGSTOP");
        workerA.process.kill("SIGKILL");
        await workerA.exited;

        await workers.claimAndRun(sessionId);

        // The editor sees what B stored as any follower, then why its prompt ended, once; two model
        // requests: B's prompt, then the editor's resend (the unread prompt never ran).
        await expectToldThenResent(editor, fixture.model, sent, 2);
      } finally {
        await inbox.end();
        await editor.stop();
      }
    }, 90_000);
  },
);
