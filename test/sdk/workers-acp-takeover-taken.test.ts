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

import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { startTcpServer } from "./tcp-server.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { holdAnswers, inboxPromptsTaken, promptInInbox, useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "an ACP follower's prompt taken by an owner that died before starting it",
  () => {
    const workers = useWorkers();

    test("A takes the editor's prompt behind a held one and is killed, B claims: the prompt ends with an error, the resend runs on B", async () => {
      const { fixture, env } = workers;
      const url = env.TURNLOOP_DATABASE_URL ?? "";
      const workerA = await startTcpServer(fixture, env);
      fixture.onClose(() => workerA.stop());
      const clientA = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
      const onA = await clientA.createSession({ onPermissionRequest: approveAll });
      const { sessionId } = onA;
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
        const waited = editor.agent
          .request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text: "sent by the editor, taken by A" }],
          })
          .then(
            (answer) => ({ answer }),
            (error: acp.RequestError) => ({ error: { code: error.code, message: error.message } }),
          );
        await inbox.stored;
        workerA.process.kill("SIGCONT");
        await inboxPromptsTaken(url);
        editor.child.kill("SIGSTOP");
        workerA.process.kill("SIGKILL");
        await workerA.exited;

        fixture.model.setResponder(undefined);
        const onB = await workers.worker().resumeSession(sessionId, {
          onPermissionRequest: approveAll,
        });
        fixture.model.enqueue({ text: "answered for B" });
        const answeredB = await onB.sendAndWait({ prompt: "sent by B" });
        expect(answeredB?.data.content).toBe("answered for B");

        editor.child.kill("SIGCONT");
        const message = `the worker running session ${sessionId} stopped (its lease lapsed) before this prompt started; send it again to run it here`;
        expect(await waited).toEqual({ error: { code: -32603, message } });
        // What B stored (A committed nothing of its held prompt), then why the prompt ended, once.
        expect(editor.updates.slice(beforePrompt).map(withoutIds)).toEqual([
          text("user_message_chunk", "sent by B"),
          { sessionUpdate: "session_info_update", title: "sent by B", updatedAt: "<time>" },
          text("agent_message_chunk", "answered for B"),
          text("agent_message_chunk", message),
        ]);
        const beforeResend = editor.updates.length;

        fixture.model.enqueue({ text: "answered for the editor" });
        const resent = await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "sent by the editor, taken by A" }],
        });
        expect(resent).toEqual({ stopReason: "end_turn" });
        expect(editor.updates.slice(beforeResend).map(withoutIds)).toEqual([
          text("agent_message_chunk", "answered for the editor"),
        ]);
        // A's held prompt, B's prompt, then the editor's resend: the taken prompt never ran.
        expect(fixture.model.requests).toHaveLength(3);
      } finally {
        await inbox.end();
        editor.child.kill("SIGCONT");
        await editor.stop();
      }
    }, 90_000);
  },
);
