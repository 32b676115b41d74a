/**
 * Trial 37 F7 on a follower: an ACP prompt whose blocks reach the model only as notes (an audio
 * clip, an embedded binary resource) warns the editor's user, "Not sent to the model: …", when
 * the session is held by another worker too (issue 22): the follower sends what was not sent with
 * the prompt, and the owner records the warning after the prompt, as it does for its own editor's.
 * Before, the follower's user was told nothing.
 */

import type * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers } from "./workers-support.js";

const WARNING =
  "Not sent to the model: an audio clip (audio/wav); the binary content of /tmp/x.pdf; it was " +
  "told of them instead.";

describeWorkers("an ACP follower's prompt with blocks the model gets only a note of", (workers) => {
  test("the follower's editor and the owner's app are warned, as for a local prompt", async () => {
    const { fixture, env } = workers;
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.load(held.sessionId);
      const blocks: acp.ContentBlock[] = [
        { type: "text", text: "Listen." },
        { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
        {
          type: "resource",
          resource: { uri: "file:///tmp/x.pdf", mimeType: "application/pdf", blob: "JVBERg==" },
        },
      ];
      fixture.model.enqueue({ text: "Noted." });
      const answer = await editor.agent.request("session/prompt", {
        sessionId: held.sessionId,
        prompt: blocks,
      });
      expect(answer).toEqual({ stopReason: "end_turn" });
      const stored = await held.getMessages();
      const kinds = stored
        .filter((event) =>
          ["user.message", "session.warning", "assistant.message"].includes(event.type),
        )
        .map((event) => (event.type === "session.warning" ? event.data.message : event.type));
      expect(kinds).toEqual(["user.message", WARNING, "assistant.message"]);
      // A notice of turnloop's own: a thought for an editor that offered no notices.
      const thoughts = editor.updates.flatMap((update) =>
        update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
          ? [update.content.text]
          : [],
      );
      expect(thoughts).toEqual([`⚠ ${WARNING}\n`]);
    } finally {
      await editor.stop();
    }
  });
});
