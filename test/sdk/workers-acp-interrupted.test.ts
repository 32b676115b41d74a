/**
 * An ACP follower's prompt running on a worker that dies (issue 22; the "Prompt interrupted" notice
 * of src/acp/remote-session.ts, README "turnloop acp follows held sessions too"): worker A (a real
 * server process) holds a session; `turnloop acp` on the same database loads it and sends a
 * `session/prompt`, which A takes and starts (its model request is in flight); A is killed with
 * SIGKILL. Once A's lease lapses, the prompt fails with a `-32603` error saying it ended there
 * unfinished, told first as turnloop's notice "Prompt interrupted" (a `notice` to a client that
 * offered `session.notices`, a thought to any other), never as the reply; the editor's next
 * prompt claims the session, whose open turn is repaired as interrupted, and runs in the ACP
 * process.
 */

import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { describeWorkers, holdAnswers } from "./workers-support.js";

/** A notice as `offer`'s client is sent it (src/acp/notices.ts). */
function said(
  offer: "notices" | "none",
  notice: { severity: "warning" | "error"; title: string; words: string },
): object {
  const { severity, title, words } = notice;
  return offer === "notices"
    ? { sessionUpdate: "notice", severity, title, description: words }
    : text("agent_thought_chunk", `⚠ ${words}\n`);
}

describeWorkers("an ACP follower's prompt running on a worker that dies", (workers) => {
  test.for(["notices", "none"] as const)(
    "A killed while it runs the editor's prompt: the prompt fails as interrupted, the next runs in the ACP process (offer: %s)",
    { timeout: 90_000 },
    async (offer) => {
      const { fixture, env } = workers;
      const asked = fixture.model.requests.length;
      const { worker: workerA, session: onA } = await workers.ownerSession();
      const editor = startAcpAgent(env, fixture.cwd);
      try {
        const { sessionId } = onA;
        await editor.load(sessionId, offer === "notices" ? { session: { notices: {} } } : {});
        const requested = holdAnswers(fixture.model);
        const waited = editor.promptSettled(sessionId, "the editor's long prompt");
        // A took the editor's prompt and started it: its model request is in flight.
        await requested.opened;
        workerA.process.kill("SIGKILL");
        await workerA.exited;
        const message = `the worker running session ${sessionId} stopped (its lease lapsed) while running this prompt: it ended there unfinished`;
        expect(await waited).toEqual({ error: { code: -32603, message } });
        const beforeClaim = editor.updates.length;
        expect(editor.updates.map(withoutIds)).toEqual([
          // The editor shows its own prompt; the title it gave the session is news.
          {
            sessionUpdate: "session_info_update",
            title: "the editor's long prompt",
            updatedAt: "<time>",
          },
          said(offer, { severity: "error", title: "Prompt interrupted", words: message }),
        ]);

        fixture.model.setResponder(undefined);
        fixture.model.enqueue({ text: "answered in the ACP process" });
        const claimed = await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "again" }],
        });
        expect(claimed).toEqual({ stopReason: "end_turn" });
        expect(editor.updates.slice(beforeClaim).map(withoutIds)).toEqual([
          expect.objectContaining({ sessionUpdate: "available_commands_update" }),
          said(offer, {
            severity: "warning",
            title: "Session log repaired",
            words:
              "turnloop repaired the session log: closed 1 turn left open when its process ended, as interrupted",
          }),
          text("agent_message_chunk", "answered in the ACP process"),
          ...(offer === "notices"
            ? [expect.objectContaining({ sessionUpdate: "usage_update" })]
            : []),
        ]);
        // The editor's prompt's held request on A, then its next prompt, in the ACP process.
        expect(fixture.model.requests).toHaveLength(asked + 2);
        expect(editor.invalid).toEqual([]);
      } finally {
        await editor.stop();
      }
    },
  );
});
