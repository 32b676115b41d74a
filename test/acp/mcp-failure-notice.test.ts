import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A fresh user's trial: in `turnloop acp`, an MCP server that failed to start was said only on
// the agent's stderr, which editors hide; the user only found its tools missing. ACP v1 has no
// update for a server's state, so the failure is a thought the editor shows: one that
// failed before the session was announced goes with the opening updates, a later one at once.
// Real failing servers: a command that does not exist, and one that exits once a gate file is made.

const fixture = ChildFixture.forEachTest();

test("an MCP server that fails to start, before or after session/new is answered, is told to the client as a thought", async () => {
  const gate = join(fixture.cwd, "gate");
  const late = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo "late: no token" >&2; exit 3`;
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: fixture.cwd,
    mcpServers: [
      { name: "tracker", command: "/nonexistent/tracker-mcp", args: [], env: [] },
      { name: "late", command: "/bin/sh", args: ["-c", late], env: [] },
    ],
  });
  const notice = (server: string) => (update: acp.SessionUpdate) =>
    update.sessionUpdate === "agent_thought_chunk" &&
    update.content.type === "text" &&
    update.content.text.startsWith(`⚠ MCP server ${server} failed`);
  await agent.waitForUpdate(sessionId, notice("tracker"));
  await writeFile(gate, "");
  await agent.waitForUpdate(sessionId, notice("late"));
  const updates = agent
    .updates(sessionId)
    .map((update) =>
      update.sessionUpdate === "agent_thought_chunk"
        ? { ...update, messageId: typeof update.messageId }
        : { sessionUpdate: update.sessionUpdate },
    );
  const message = (text: string) => ({
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text },
    messageId: "string",
  });
  expect(updates).toEqual([
    { sessionUpdate: "available_commands_update" },
    message(
      "⚠ MCP server tracker failed: command not found: /nonexistent/tracker-mcp; its tools are not available\n",
    ),
    message(
      "⚠ MCP server late failed: the server exited with exit code 3 (stderr: late: no token); its tools are not available\n",
    ),
  ]);
  // stderr still has both lines, for logs.
  expect(agent.stderr).toContain(
    "turnloop: MCP server tracker failed: command not found: /nonexistent/tracker-mcp; its tools are not available\n",
  );
  expect(agent.stderr).toContain(
    "turnloop: MCP server late failed: the server exited with exit code 3 (stderr: late: no token); its tools are not available\n",
  );
  expect(fixture.server.requests).toEqual([]);
  expect(await agent.end()).toBe(0);
});

test("servers the editor gives that cannot start (a url that is no http URL) or that share a name are told to the client, naming the entry and the field", async () => {
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: fixture.cwd,
    mcpServers: [
      { type: "sse", name: "s", url: "notaurl", headers: [] },
      { name: "twice", command: "/nonexistent/first", args: [], env: [] },
      { name: "twice", command: "/nonexistent/second", args: [], env: [] },
    ],
  });
  const failed = (server: string) => (update: acp.SessionUpdate) =>
    update.sessionUpdate === "agent_thought_chunk" &&
    update.content.type === "text" &&
    update.content.text.startsWith(`⚠ MCP server ${server} failed`);
  await agent.waitForUpdate(sessionId, failed("twice"));
  const texts = agent
    .updates(sessionId)
    .map((update) =>
      update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
        ? update.content.text
        : update.sessionUpdate,
    );
  expect(texts).toEqual([
    "available_commands_update",
    '⚠ MCP server s failed: mcpServers[0]: "url" is not an http:// or https:// URL: "notaurl"; its tools are not available\n',
    "⚠ MCP server twice is given twice, as mcpServers[1] and mcpServers[2]: turnloop uses mcpServers[2], the last one\n",
    "⚠ MCP server twice failed: command not found: /nonexistent/second; its tools are not available\n",
  ]);
  expect(agent.stderr).toContain(
    'turnloop: warning: MCP server s failed: mcpServers[0]: "url" is not an http:// or https:// URL: "notaurl"; its tools are not available\n',
  );
  expect(fixture.server.requests).toEqual([]);
  expect(await agent.end()).toBe(0);
});
