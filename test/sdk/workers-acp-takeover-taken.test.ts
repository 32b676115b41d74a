/**
 * An ACP follower's prompt its owner took but never started when the owner dies and another worker
 * claims the session (issue 22; the SDK server's case is workers-takeover-taken.test.ts): worker A
 * runs a prompt of its own client, held at the model; `turnloop acp` on the same database loads
 * the session and sends a `session/prompt`, which A takes from the inbox and queues behind the
 * running one; the ACP process is frozen while A is killed and worker B's own client claims the
 * session and runs a prompt. Nothing is left to withdraw and B is live, yet the prompt can never
 * run: once the ACP process wakes, it ends with an error saying to send it again, and the resend
 * runs on B, once.
 */

import { test } from "vitest";
import { expectToldThenResent, startAcpAgent } from "./workers-acp-support.js";
import {
  describeWorkers,
  holdAnswers,
  inboxPromptsTaken,
  promptInInbox,
} from "./workers-support.js";

describeWorkers(
  "an ACP follower's prompt taken by an owner that died before starting it",
  (workers) => {
    test("A takes the editor's prompt behind a held one and is killed, B claims: the prompt ends with an error, the resend runs on B", async () => {
      const { fixture, env } = workers;
      const url = env.TURNLOOP_DATABASE_URL ?? "";
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const { sessionId } = onA;
      const prompt = "sent by the editor, taken by A";
      const editor = startAcpAgent(env, fixture.cwd);
      const inbox = await promptInInbox(url);
      try {
        await editor.load(sessionId);
        const beforePrompt = editor.updates.length;
        const requested = holdAnswers(fixture.model);
        await onA.send({ prompt: "held on A" });
        await requested.opened;
        // A is frozen until the prompt is stored, so that the NOTIFY's look finds it waiting.
        workerA.process.kill("SIGSTOP");
        const waited = editor.promptSettled(sessionId, prompt);
        await inbox.stored;
        workerA.process.kill("SIGCONT");
        await inboxPromptsTaken(url);
        editor.child.kill("SIGSTOP");
        workerA.process.kill("SIGKILL");
        await workerA.exited;

        fixture.model.setResponder(undefined);
        await workers.claimAndRun(sessionId);

        // A's held prompt (stored before A asked the model), what B stored, then why the prompt
        // ended, once; three model requests: A's held prompt, B's, the editor's resend (the taken
        // one never ran).
        const sent = { sessionId, prompt, beforePrompt, waited };
        await expectToldThenResent(editor, fixture.model, sent, 3, "held on A");
      } finally {
        await inbox.end();
        await editor.stop();
      }
    }, 90_000);
  },
);
