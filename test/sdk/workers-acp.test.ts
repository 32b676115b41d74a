/**
 * ACP on any worker (issue 22): a real server worker (`--headless --stdio`, spawned by our SDK)
 * holds a session in one PostgreSQL database, and `turnloop acp` (a real child process, driven by
 * the ACP SDK's client) on the same database loads it: the history is replayed, then every event
 * the worker stores arrives as `session/update`s; a `session/prompt` runs on the worker through the
 * inbox, and once the worker let the session go, a prompt claims it and runs in the ACP process.
 */

import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { postgresUnavailable } from "../support/postgres.js";
import { answered, startAcpAgent, text, withoutIds } from "./workers-acp-support.js";
import { useWorkers } from "./workers-support.js";

describe.skipIf(postgresUnavailable !== undefined)("ACP on a session another worker holds", () => {
  const workers = useWorkers();

  test("session/load replays it and follows it; a prompt runs on its owner, then, once the owner let it go, here", async () => {
    const { fixture, env } = workers;
    const worker = workers.worker();
    const held = await worker.createSession({ onPermissionRequest: approveAll });
    const seenOnWorker: string[] = [];
    held.on((event) => {
      if (event.type === "user.message") {
        seenOnWorker.push(event.data.content);
      }
    });
    fixture.model.enqueue({ text: "first answer" });
    await held.sendAndWait({ prompt: "first" });

    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = held;
      await editor.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: fixture.cwd,
        mcpServers: [],
      });
      const replayed = editor.updates.length;

      // A prompt of the worker's own client: followed here.
      fixture.model.enqueue({ text: "second answer" });
      const second = editor.next(answered("second answer"));
      await held.sendAndWait({ prompt: "second" });
      await second;

      // A prompt of the editor: runs on the worker, answered here when its events end.
      fixture.model.enqueue({ text: "third answer" });
      const third = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "third" }],
      });
      expect(third).toEqual({ stopReason: "end_turn" });
      expect(seenOnWorker).toEqual(["first", "second", "third"]);

      // The worker lets the session go: the editor's next prompt claims it and runs here.
      await held.disconnect();
      fixture.model.enqueue({ text: "fourth answer" });
      const fourth = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "fourth" }],
      });
      expect(fourth).toEqual({ stopReason: "end_turn" });
      expect(fixture.model.requests).toHaveLength(4);

      expect(editor.updates.slice(0, replayed).map(withoutIds)).toEqual([
        text("user_message_chunk", "first"),
        { sessionUpdate: "session_info_update", title: "first", updatedAt: "<time>" },
        text("agent_message_chunk", "first answer"),
      ]);
      expect(editor.updates.slice(replayed).map(withoutIds)).toEqual([
        // Another client's prompt is shown; the editor's own are not echoed.
        text("user_message_chunk", "second"),
        text("agent_message_chunk", "second answer"),
        text("agent_message_chunk", "third answer"),
        // Run here after the claim: the commands of a session opened here, then its answer.
        expect.objectContaining({ sessionUpdate: "available_commands_update" }),
        text("agent_message_chunk", "fourth answer"),
      ]);
    } finally {
      await editor.stop();
    }
  });
});
