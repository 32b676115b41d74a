/**
 * An editor following a session another worker holds sees the name an app gives it, live (issue
 * 22; src/acp/updates.ts `map`): worker A (a real server process) holds a session its Copilot
 * SDK client created and prompted; `turnloop acp` on the same database loaded it. The app names
 * the session (`session.name.set`, stored as `session.title_changed`). Before, the editor's title
 * stayed the first prompt until it loaded the session again; now the follower sends ACP v1's
 * `session_info_update` with the name and the event's time (/work/shared/reference/acp.md §1.7),
 * valid for the SDK's schema. Real processes on PostgreSQL.
 */

import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("an ACP follower's session named by another worker's app", (workers) => {
  test("the editor gets the name as its title after the prompt's updates, at the name's time", async () => {
    const { fixture, env } = workers;
    const workerA = await workers.tcpWorker();
    const app = await workerA.copilotClient();
    const onA = await app.createSession({ onPermissionRequest: approveAll });
    const { sessionId } = onA;
    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.load(sessionId);
      fixture.model.enqueue({ text: "Here are the notes." });
      const answered = editor.next((update) => update.sessionUpdate === "agent_message_chunk");
      await onA.sendAndWait({ prompt: "write the release notes" });
      await answered;
      const named = editor.next(
        (update) => update.sessionUpdate === "session_info_update" && update.title === "v2 notes",
      );
      const seenByApp: SessionEvent[] = [];
      onA.on((event) => seenByApp.push(event));
      await onA.rpc.name.set({ name: "v2 notes" });
      await named;
      const stored = seenByApp.find((event) => event.type === "session.title_changed");
      expect(editor.updates.map(withoutIds)).toEqual([
        text("user_message_chunk", "write the release notes"),
        // The first prompt titles the session, then the name does.
        {
          sessionUpdate: "session_info_update",
          title: "write the release notes",
          updatedAt: "<time>",
        },
        text("agent_message_chunk", "Here are the notes."),
        { sessionUpdate: "session_info_update", title: "v2 notes", updatedAt: "<time>" },
      ]);
      expect(editor.updates.at(-1)).toEqual({
        sessionUpdate: "session_info_update",
        title: "v2 notes",
        updatedAt: stored?.timestamp,
      });
      expect(editor.invalid).toEqual([]);
    } finally {
      await editor.stop();
    }
  }, 90_000);
});
