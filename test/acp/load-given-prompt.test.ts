import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { spawnServer } from "../server/raw-peer.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { AcpHarness, normalise, requestMessages } from "./support.js";

/** What an editor sends: text, a link to a file, an embedded file and a PNG. */
function givenBlocks(cwd: string): acp.ContentBlock[] {
  return [
    { type: "text", text: "Look at these" },
    {
      type: "resource_link",
      uri: `file://${cwd}/package.json`,
      name: "package.json",
      mimeType: "application/json",
    },
    {
      type: "resource",
      resource: { uri: `file://${cwd}/notes.txt`, text: "EMBEDDED-MARKER line\n" },
    },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
  ];
}

describe("a prompt with attachments comes back as the user gave it, never as the model's text", () => {
  test("session/load replays its blocks; the title, session/list and sessions show read its text", async () => {
    let harness = await AcpHarness.start();
    harness.server.enqueue({ text: "Seen." });
    const sessionId = await harness.newSession();
    const blocks = givenBlocks(harness.cwd);
    await harness.prompt(sessionId, blocks);
    // The model got them rendered as text (prompt-turn.test.ts checks every rendering).
    expect(JSON.stringify(requestMessages(harness.server, 0).at(-1))).toContain(
      "[Referenced: package.json",
    );

    harness = await harness.restart();
    await harness.loadSession(sessionId);
    const replayed = harness
      .updatesBefore("session/load")
      .filter((update) => update.sessionUpdate !== "available_commands_update");
    expect(normalise(replayed, harness.cwd)).toEqual([
      // normalise writes the folder as <cwd>.
      ...givenBlocks("<cwd>").map((content) => ({
        sessionUpdate: "user_message_chunk",
        content,
        messageId: "message-1",
      })),
      { sessionUpdate: "session_info_update", title: "Look at these", updatedAt: "<time>" },
      {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Seen." },
        messageId: "message-2",
      },
      { sessionUpdate: "usage_update", used: expect.any(Number), size: expect.any(Number) },
    ]);
    const listed = await harness.client.request(acp.methods.agent.session.list, {});
    expect(listed.sessions.map((info) => info.title)).toEqual(["Look at these"]);

    const env = cleanEnvironment({ TURNLOOP_HOME: harness.home });
    const shown = await runCli(["sessions", "show", sessionId], { cwd: harness.cwd, env });
    expect(shown.stderr).toBe("");
    expect(shown.stdout).toContain(
      [
        "> Look at these",
        `> [link: package.json file://${harness.cwd}/package.json]`,
        `> [resource: file://${harness.cwd}/notes.txt]`,
        "> [image: image/png]",
      ].join("\n"),
    );
    expect(shown.stdout).not.toContain("EMBEDDED-MARKER");
    expect(shown.stdout).not.toContain("[Referenced:");

    // The SDK face: Copilot's `content` as given, `transformedContent` what the model got.
    const { child, peer, exit } = spawnServer(["--stdio"], env, harness.cwd);
    await peer.request("connect", {});
    const answer = await peer.request("session.getMessages", { sessionId });
    const { events } = answer.result as {
      events: Array<{
        type: string;
        data: { content?: string; transformedContent?: string; contentBlocks?: unknown };
      }>;
    };
    const prompt = events.find((event) => event.type === "user.message")?.data;
    expect(prompt?.content).toBe("Look at these");
    expect(prompt?.transformedContent).toContain("EMBEDDED-MARKER line");
    // The blocks as sent (the log keeps the embedded text in `content` only); the PNG went to
    // the model as an image, not as a block.
    expect(prompt?.contentBlocks).toEqual(givenBlocks(harness.cwd).slice(0, 3));
    child.stdin.end();
    await exit;
  });
});
