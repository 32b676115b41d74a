/**
 * A PostgreSQL session held by a face that runs only its own prompts (here `turnloop acp`, as the
 * interactive face and `-p` do: only the SDK server takes its inbox): an editor's `session/prompt`
 * from another `turnloop acp`, and an SDK client's `session.send` from a server worker, are
 * refused at once with an error naming the holder, instead of waiting forever for a holder that
 * never reads the inbox (a fresh user's trial, bench/notes/trial.md item 1). Nothing reaches the
 * model, and the holder's own prompt runs as before.
 */

import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)("a session held by a face without inbox", () => {
  const workers = useWorkers();

  test("a prompt from another process is refused naming the holder; the holder's own runs", async () => {
    const { fixture, env } = workers;
    const holder = startAcpAgent(env, fixture.cwd);
    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await holder.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = await holder.agent.request(acp.methods.agent.session.new, {
        cwd: fixture.cwd,
        mcpServers: [],
      });
      const refusal = (pid: number | undefined, face = "") =>
        expect.stringMatching(
          new RegExp(
            `^${face}Session ${sessionId} is open in another process \\(pid ${pid}, running: .*acp.*\\), which runs only its own prompts: only a session held by the SDK server \\(turnloop --headless\\) takes prompts from other processes\\. Send this prompt there, or here once that process has closed the session\\.$`,
          ),
        );

      await editor.load(sessionId);
      const refused = await editor.promptSettled(sessionId, "from the editor");
      expect(refused).toEqual({ error: { code: -32600, message: refusal(holder.child.pid) } });

      const follower = await workers.worker().resumeSession(sessionId, {
        onPermissionRequest: approveAll,
      });
      await expect(follower.send({ prompt: "from the SDK" })).rejects.toMatchObject({
        code: -32603,
        message: refusal(holder.child.pid, "session\\.send failed: "),
      });
      expect(fixture.model.requests).toHaveLength(0);

      // The holder's own prompt runs, and the editor (still following) sees it.
      fixture.model.enqueue({ text: "held answer" });
      const seen = editor.next((update) => update.sessionUpdate === "agent_message_chunk");
      const own = await holder.prompt(sessionId, "from the holder");
      expect(own).toEqual({ stopReason: "end_turn" });
      expect(fixture.model.requests).toHaveLength(1);
      await seen;
      expect(editor.updates.map(withoutIds)).toEqual([
        text("user_message_chunk", "from the holder"),
        { sessionUpdate: "session_info_update", title: "from the holder", updatedAt: "<time>" },
        text("agent_message_chunk", "held answer"),
      ]);
    } finally {
      await editor.stop();
      await holder.stop();
    }
  });
});
