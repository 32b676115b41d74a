/**
 * A followed session deleted by another worker (issue 22; the SDK server's case is
 * workers-deleted.test.ts): worker A holds a session, `turnloop acp` on the same database loads it,
 * and an app on A deletes it. ACP v1 has no deletion notice (`session_info_update` carries only
 * title and updatedAt), so the editor learns it at its next request on the session: `-32002`
 * (Resource not found, `data.sessionId`: /work/shared/reference/acp.md §1.12) saying it was
 * deleted, every time, not a claim of a session that is no more: told by the store's live events
 * (live-events.ts `onDeleted`), or, should the prompt come first, found by its claim (the log
 * gone: deleted-sessions.ts), the same answer. Real processes on PostgreSQL.
 */

import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { TurnloopClient } from "../../src/sdk/index.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("an ACP follower's session deleted by another worker", (workers) => {
  test("every later request on it answers -32002 saying it was deleted by another worker", async () => {
    const { fixture, env } = workers;
    const { worker: workerA, session: onA } = await workers.ownerSession();
    const { sessionId } = onA;
    const editor = startAcpAgent(env, fixture.cwd);
    const deleting = new TurnloopClient({ port: workerA.port, cwd: fixture.cwd });
    try {
      await editor.load(sessionId);
      const beforeDelete = editor.updates.length;
      await deleting.deleteSession(sessionId);

      const deleted = {
        code: -32002,
        message: `Session ${sessionId} was deleted by another worker or app while followed here: it is gone (session/list lists the sessions that remain)`,
        data: { sessionId },
      };
      const errorOf = (request: Promise<unknown>) =>
        request.then(
          (answer) => ({ answer }),
          (error: acp.RequestError) => ({
            code: error.code,
            message: error.message,
            data: error.data,
          }),
        );
      const prompt = { sessionId, prompt: [{ type: "text" as const, text: "still there?" }] };
      expect(await errorOf(editor.agent.request(acp.methods.agent.session.prompt, prompt))).toEqual(
        deleted,
      );
      expect(await errorOf(editor.agent.request(acp.methods.agent.session.prompt, prompt))).toEqual(
        deleted,
      );
      const mode = { sessionId, modeId: "auto" };
      expect(await errorOf(editor.agent.request(acp.methods.agent.session.setMode, mode))).toEqual(
        deleted,
      );
      const load = { sessionId, cwd: fixture.cwd, mcpServers: [] };
      expect(await errorOf(editor.agent.request(acp.methods.agent.session.load, load))).toEqual(
        deleted,
      );
      // Nothing was claimed nor stored again: no updates, and the store has no such session.
      expect(editor.updates.slice(beforeDelete)).toEqual([]);
      expect((await deleting.listSessions()).map((session) => session.sessionId)).not.toContain(
        sessionId,
      );
      expect(fixture.model.requests).toHaveLength(0);
    } finally {
      await deleting.stop();
      await editor.stop();
    }
  }, 90_000);
});
