/**
 * An ACP follower's prompt unread when its owner dies and another worker claims the session
 * before the follower checks the lease (issue 22; the SDK server's case is
 * workers-takeover-unread.test.ts): worker A holds a session; `turnloop acp` on the same database
 * loads it and sends a `session/prompt` while A is frozen, so it waits in the inbox addressed to
 * A's lease; the ACP process is frozen too while A is killed and worker B's own client claims the
 * session and runs a prompt. Once the ACP process wakes, its prompt ends with an error saying to
 * send it again (not left waiting), and the resend runs on B, once.
 */

import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { startTcpServer } from "./tcp-server.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { promptInInbox, useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)(
  "an ACP follower's unread prompt when another worker claims the session first",
  () => {
    const workers = useWorkers();

    test("A frozen then killed with the editor's prompt unread, B claims: the prompt ends with an error, the resend runs on B", async () => {
      const { fixture, env } = workers;
      const workerA = await startTcpServer(fixture, env);
      fixture.onClose(() => workerA.stop());
      const clientA = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
      const onA = await clientA.createSession({ onPermissionRequest: approveAll });
      const { sessionId } = onA;
      const editor = startAcpAgent(env, fixture.cwd);
      const inbox = await promptInInbox(env.TURNLOOP_DATABASE_URL ?? "");
      try {
        await editor.load(sessionId);
        const beforePrompt = editor.updates.length;
        workerA.process.kill("SIGSTOP");
        const waited = editor.agent
          .request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text: "sent while A froze" }],
          })
          .then(
            (answer) => ({ answer }),
            (error: acp.RequestError) => ({ error: { code: error.code, message: error.message } }),
          );
        await inbox.stored;
        editor.child.kill("SIGSTOP");
        workerA.process.kill("SIGKILL");
        await workerA.exited;

        const onB = await workers.worker().resumeSession(sessionId, {
          onPermissionRequest: approveAll,
        });
        fixture.model.enqueue({ text: "answered for B" });
        const answeredB = await onB.sendAndWait({ prompt: "sent by B" });
        expect(answeredB?.data.content).toBe("answered for B");

        editor.child.kill("SIGCONT");
        const message = `the worker running session ${sessionId} stopped (its lease lapsed) before this prompt started; send it again to run it here`;
        expect(await waited).toEqual({ error: { code: -32603, message } });
        // What B stored (the editor sees it as any follower), then why the prompt ended, once.
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
          prompt: [{ type: "text", text: "sent while A froze" }],
        });
        expect(resent).toEqual({ stopReason: "end_turn" });
        // Run by B (a claim here would first send the commands and the title of a session opened).
        expect(editor.updates.slice(beforeResend).map(withoutIds)).toEqual([
          text("agent_message_chunk", "answered for the editor"),
        ]);
        // B's prompt, then the editor's resend: the unread prompt never ran.
        expect(fixture.model.requests).toHaveLength(2);
      } finally {
        await inbox.end();
        editor.child.kill("SIGCONT");
        await editor.stop();
      }
    }, 90_000);
  },
);
