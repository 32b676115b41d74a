import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, onTestFinished, test } from "vitest";
import { ANSWER_TURN, UNTIL_TOOL_START } from "../support/event-sequences.js";
import {
  livePids,
  serverLog,
  startHttpServer,
  TEST_SERVER,
  waitForLog,
} from "../support/mcp/servers.js";
import { ChildFixture } from "./child-process.js";
import { announced, completedWithText, described, inProgress } from "./expected-updates.js";
import { AcpHarness } from "./support.js";

/**
 * The prompt waits for the editor's servers however long a loaded machine takes to start them
 * (the default start-up wait, 5 s, is not always enough there; then the tool would be missing).
 */
const WAIT_FOR_SERVERS = { TURNLOOP_MCP_STARTUP_WAIT_MS: "60000" };

function stdio(name: string, ...flags: string[]): acp.McpServer {
  return { name, command: process.execPath, args: [TEST_SERVER, ...flags], env: [] };
}

describe("MCP servers an editor passes over ACP", () => {
  test("session/new with a stdio server: its tool reaches the model, runs as a tool_call named by the server, and no server outlives the agent", async () => {
    const fixture = await ChildFixture.start();
    onTestFinished(() => fixture.close());
    const log = join(fixture.cwd, "acp-server.log");
    const agent = fixture.startAgent(WAIT_FOR_SERVERS);
    await agent.initialize();
    const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
      cwd: fixture.cwd,
      mcpServers: [stdio("t", "--log", log, "--grandchild")],
    });
    fixture.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "t__echo", arguments: '{"text":"from zed"}' }] },
      { text: "done" },
    );
    const answer = await agent.prompt(sessionId, "echo from zed");
    expect(answer).toEqual({ stopReason: "end_turn" });
    const body = fixture.server.requests[0]?.body as {
      tools: Array<{ function: { name: string } }>;
    };
    expect(body.tools.map((tool) => tool.function.name)).toContain("t__echo");
    const updates = agent
      .updates(sessionId)
      .filter((update) => update.sessionUpdate.startsWith("tool_call"));
    // Announced as the model starts the call, with the server's title from the first update (trial
    // 38 F5: it was `t__echo` until the arguments came), then the arguments,
    // in_progress once it runs (after the permission question), then its result.
    expect(updates).toEqual([
      announced("call_1", "t: echo", "other"),
      described("call_1", "t: echo", "other", { text: "from zed" }),
      inProgress("call_1"),
      completedWithText("call_1", "echo: from zed"),
    ]);
    const asked = agent.behaviour.calls.filter(
      (call) => call.method === "session/request_permission",
    );
    expect(
      asked.map((call) => (call.params as { toolCall: { title: string } }).toolCall.title),
    ).toEqual(["t: echo"]);
    const persisted = await fixture.persisted(sessionId);
    expect(persisted.map((event) => event.type)).toEqual([
      ...UNTIL_TOOL_START,
      "permission.requested",
      "permission.completed",
      "tool.execution_complete",
      "assistant.turn_end",
      ...ANSWER_TURN,
    ]);
    expect(persisted.find((event) => event.type === "tool.execution_start")?.data).toEqual({
      toolCallId: "call_1",
      toolName: "t__echo",
      arguments: { text: "from zed" },
      mcpServerName: "t",
      mcpToolName: "echo",
    });
    await waitForLog(log, (entries) =>
      entries.some((entry) => typeof entry.grandchild === "number"),
    );
    expect(livePids(log).length).toBe(2);
    expect(await agent.end()).toBe(0);
    expect(livePids(log)).toEqual([]);
  });

  test("a call of a server that stopped is titled as a live server's call is: server: tool", async () => {
    const fixture = await ChildFixture.start();
    onTestFinished(() => fixture.close());
    const agent = fixture.startAgent(WAIT_FOR_SERVERS);
    await agent.initialize();
    const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
      cwd: fixture.cwd,
      mcpServers: [stdio("st")],
    });
    // The first call runs and the server exits during it; the second names a tool of the
    // stopped server, which is no longer offered (session 38: titled `st__echo`).
    fixture.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "st__crash", arguments: "{}" }] },
      { toolCalls: [{ id: "call_2", name: "st__echo", arguments: '{"text":"x"}' }] },
      { text: "done" },
    );
    expect(await agent.prompt(sessionId, "crash, then echo")).toEqual({ stopReason: "end_turn" });
    const titled = agent
      .updates(sessionId)
      .filter((update) => update.sessionUpdate.startsWith("tool_call") && "title" in update);
    expect(titled).toEqual([
      announced("call_1", "st: crash", "other"),
      described("call_1", "st: crash", "other", {}),
      announced("call_2", "st: echo", "other"),
      described("call_2", "st: echo", "other", { text: "x" }),
    ]);
  });

  test("session/load restarts the editor's servers; an HTTP server gets its headers", async () => {
    let harness = await AcpHarness.start({ env: WAIT_FOR_SERVERS });
    // In the test's own folder: a log left by an earlier run cannot answer for this one.
    const logFile = join(harness.cwd, "http-server.log");
    const http = await startHttpServer("--log", logFile);
    try {
      const sessionId = await harness.newSession();
      await harness.disconnect();
      harness = await harness.restart();
      await harness.client.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: harness.cwd,
        mcpServers: [
          { type: "http", name: "web", url: http.url, headers: [{ name: "X-Test", value: "acp" }] },
        ],
      });
      harness.server.enqueue(
        { toolCalls: [{ id: "call_h", name: "web__echo", arguments: '{"text":"loaded"}' }] },
        { text: "ok" },
      );
      await harness.prompt(sessionId, "echo");
      const done = harness
        .updates(sessionId)
        .find(
          (update) => update.sessionUpdate === "tool_call_update" && update.status === "completed",
        );
      expect(done).toMatchObject({ content: [{ content: { text: "echo: loaded" } }] });
      expect(serverLog(logFile).some((entry) => entry.header === "acp")).toBe(true);
    } finally {
      await http.stop();
    }
  });
});
