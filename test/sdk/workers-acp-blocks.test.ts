/**
 * An ACP follower's prompt runs on the worker that holds the session, through the inbox (issue
 * 22): its blocks as the editor gave them (`resource_link`, `resource`) go with the text, so the
 * owner's log records the prompt as a local ACP prompt is recorded (`user.message.contentBlocks`
 * beside the model's text): the owner's SDK app, a later `session/load` and every reader of the
 * log see the prompt as given. Before, only the model's text crossed, and it was all the log had.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { promptContent } from "../../src/acp/prompt-content.js";
import { approveAll } from "../../src/sdk/index.js";
import { startAcpAgent } from "./workers-acp-support.js";
import { describeWorkers } from "./workers-support.js";

describeWorkers("an ACP follower's prompt with attachments", (workers) => {
  test("the owner records its blocks as given, as a local ACP prompt's", async () => {
    const { fixture, env } = workers;
    await writeFile(join(fixture.cwd, "notes.txt"), "the notes\n");
    const held = await workers.worker().createSession({ onPermissionRequest: approveAll });
    const editor = startAcpAgent(env, fixture.cwd);
    try {
      await editor.load(held.sessionId);
      const blocks: acp.ContentBlock[] = [
        { type: "text", text: "Compare these" },
        {
          type: "resource_link",
          uri: pathToFileURL(join(fixture.cwd, "notes.txt")).href,
          name: "notes.txt",
        },
        {
          type: "resource",
          resource: { uri: "file:///elsewhere/todo.md", mimeType: "text/markdown", text: "- one" },
        },
      ];
      fixture.model.enqueue({ text: "They differ." });
      const answer = await editor.agent.request("session/prompt", {
        sessionId: held.sessionId,
        prompt: blocks,
      });
      expect(answer).toEqual({ stopReason: "end_turn" });

      const local = promptContent(blocks);
      const stored = (await held.getMessages()).filter((event) => event.type === "user.message");
      // The wire gives the prompt as given in `content`, the model's text in `transformedContent`.
      expect(stored.map((event) => event.data)).toEqual([
        expect.objectContaining({
          content: "Compare these",
          transformedContent: local.text,
          // The blocks as the editor gave them (the log keeps an embedded text once, in
          // `content`: the wire puts it back).
          contentBlocks: blocks,
          source: "user",
        }),
      ]);
      // The model read the text a local prompt gives it.
      const request = fixture.model.requests.at(-1)?.body as {
        messages: Array<{ content: unknown }>;
      };
      expect(request.messages.at(-1)?.content).toBe(local.text);
    } finally {
      await editor.stop();
    }
  });
});
