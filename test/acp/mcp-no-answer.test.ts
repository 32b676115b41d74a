import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { stdioEntry } from "../support/mcp/servers.js";
import { ChildFixture } from "./child-process.js";

// A trial of session 18's build (round 3, session 19, item 5): in `turnloop acp`, an MCP server
// that never answered `initialize` was never told to the editor (nor on stderr); the model was
// told its tool did not exist. As a failed server, it is a thought the editor shows, once
// the prompt's start-up wait is over.

const fixture = ChildFixture.forEachTest();

test("a server still starting when the prompt's start-up wait ends is told to the client, and the prompt is answered", async () => {
  const agent = fixture.startAgent({ TURNLOOP_MCP_STARTUP_WAIT_MS: "200" });
  await agent.initialize();
  const entry = stdioEntry("--never-initialize");
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: fixture.cwd,
    mcpServers: [
      {
        name: "slow",
        command: entry.command,
        args: entry.args,
        env: [],
      },
    ],
  });
  fixture.server.enqueue({ text: "Answered without it." });
  expect(await agent.prompt(sessionId, "hi")).toMatchObject({ stopReason: "end_turn" });
  const said =
    "MCP server slow is still starting: initialize got no answer within 0.2 s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS); the session goes on without its tools until it answers\n";
  const notices = agent
    .updates(sessionId)
    .filter(
      (update) =>
        update.sessionUpdate === "agent_thought_chunk" &&
        update.content.type === "text" &&
        update.content.text.startsWith("⚠ MCP server"),
    )
    .map((update) =>
      update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
        ? update.content.text
        : "",
    );
  expect(notices).toEqual([`⚠ ${said}`]);
  expect(agent.stderr).toContain(`turnloop: ${said}`);
  expect(await agent.end()).toBe(0);
});
