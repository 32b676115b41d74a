import { statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { requestedToolCall, TOOL_TURN } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";
import { chatMessages, type Harness, shape } from "../support/harness.js";
import { stdioServer, waitForLog } from "../support/mcp/servers.js";
import { call, stateOf, withServers } from "./mcp-support.js";

function toolNames(target: Harness, request: number): string[] {
  const body = target.server.requests[request]?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("MCP tools in the loop", () => {
  test("a stdio server's tool round trip: offered with its schema, called, logged with the server name", async ({
    openHarness,
  }) => {
    const { harness } = await withServers(openHarness, () => ({ t: stdioServer() }));
    harness.server.enqueue(call("t__echo", { text: "hi" }), { text: "done" });
    expect(await harness.prompt("echo hi")).toEqual({ stopReason: "end_turn" });
    const body = harness.server.requests[0]?.body as { tools: Array<{ function: unknown }> };
    const echo = body.tools
      .map((tool) => tool.function)
      .find((tool) => (tool as { name: string }).name === "t__echo");
    expect(echo).toEqual({
      name: "t__echo",
      description: "Echoes the text back",
      parameters: expect.objectContaining({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      }),
    });
    expect(shape(harness.events)).toEqual([
      { type: "session.mcp_server_status_changed", data: { serverName: "t", status: "connected" } },
      { type: "user.message", data: { content: "echo hi", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "turn-1" } },
      ...requestedToolCall("message-1", "call_1", "t__echo", { text: "hi" }),
      expect.objectContaining({ type: "assistant.usage" }),
      {
        type: "tool.execution_start",
        data: {
          toolCallId: "call_1",
          toolName: "t__echo",
          arguments: { text: "hi" },
          mcpServerName: "t",
          mcpToolName: "echo",
        },
      },
      { type: "tool.execution_running", data: { toolCallId: "call_1" } },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "t__echo",
          success: true,
          result: { content: "echo: hi" },
        },
      },
      {
        type: "assistant.turn_end",
        data: { turnId: "turn-1", status: "completed", finishReason: "tool-calls" },
      },
      { type: "assistant.turn_start", data: { turnId: "turn-2" } },
      expect.objectContaining({ type: "assistant.message_delta" }),
      expect.objectContaining({
        type: "assistant.message",
        data: expect.objectContaining({ content: "done" }),
      }),
      expect.objectContaining({ type: "assistant.usage" }),
      {
        type: "assistant.turn_end",
        data: {
          turnId: "turn-2",
          status: "completed",
          finishReason: "stop",
          stopReason: "end_turn",
        },
      },
      { type: "session.idle", data: { stopReason: "end_turn" } },
    ]);
    expect(chatMessages(harness, 1).at(-1)).toMatchObject({ role: "tool", content: "echo: hi" });
  });

  test("image content reaches a model that takes images in tool results (Anthropic)", async ({
    openHarness,
  }) => {
    const { harness } = await withServers(openHarness, () => ({ t: stdioServer() }), {
      wire: "anthropic",
    });
    harness.server.enqueue(call("t__image"), { text: "red" });
    await harness.prompt("show me");
    const complete = harness.events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({
      success: true,
      result: {
        content: "a red pixel\n[image: image/png]",
        images: [{ mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) }],
      },
    });
    const body = JSON.stringify(harness.server.requests[1]?.body);
    expect(body).toContain('"media_type":"image/png"');
    expect(body).toContain("iVBORw0KGgo");
  });

  test("an erroring tool gives the model an error result; resources come through as text", async ({
    openHarness,
  }) => {
    const { harness } = await withServers(openHarness, () => ({ t: stdioServer() }));
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "t__fail", arguments: "{}" },
          { id: "call_2", name: "t__resource", arguments: "{}" },
        ],
      },
      { text: "noted" },
    );
    await harness.prompt("try");
    const results = harness.events.filter((event) => event.type === "tool.execution_complete");
    expect(results.map((event) => event.data)).toEqual([
      {
        toolCallId: "call_1",
        toolName: "t__fail",
        success: false,
        result: { content: "MCP tool t/fail failed: the widget is broken" },
        error: { message: "MCP tool t/fail failed: the widget is broken", code: "failed" },
      },
      {
        toolCallId: "call_2",
        toolName: "t__resource",
        success: true,
        result: {
          content: "[resource: file:///notes.txt]\nnote body\n[resource: other file:///other.txt]",
        },
      },
    ]);
  });

  test("a server that crashes mid-call: the call gets an error result, the server is reported, the session goes on", async ({
    openHarness,
  }) => {
    const { harness, servers } = await withServers(openHarness, () => ({
      t: stdioServer(),
      u: stdioServer(),
    }));
    harness.server.enqueue(call("t__crash"), call("u__echo", { text: "still here" }, "call_2"), {
      text: "ok",
    });
    expect(await harness.prompt("crash it")).toEqual({ stopReason: "end_turn" });
    const complete = harness.events.filter((event) => event.type === "tool.execution_complete");
    expect(complete[0]?.data).toMatchObject({
      toolCallId: "call_1",
      success: false,
      error: { code: "failed" },
    });
    expect(complete[0]?.data.result.content).toBe(
      "MCP server t stopped: the server exited with exit code 3; its tools are unavailable until it is started again (resuming the session starts it anew)",
    );
    expect(complete[1]?.data).toMatchObject({
      toolCallId: "call_2",
      success: true,
      result: { content: "echo: still here" },
    });
    const statuses = harness.events.filter(
      (event) => event.type === "session.mcp_server_status_changed",
    );
    const statusesOf = (name: string) =>
      statuses.filter((event) => event.data.serverName === name).map((event) => event.data.status);
    expect(statusesOf("t")).toEqual(["connected", "failed"]);
    expect(statusesOf("u")).toEqual(["connected"]);
    expect(servers.list().map((server) => [server.name, server.state])).toEqual([
      ["t", "failed"],
      ["u", "connected"],
    ]);
    // The third request no longer offers the dead server's tools.
    expect(toolNames(harness, 2).filter((name) => name.startsWith("t__"))).toEqual([]);
    expect(toolNames(harness, 2)).toContain("u__echo");
  });

  test("a server that never answers initialize delays the prompt only for the start-up wait", async ({
    openHarness,
  }) => {
    const { harness, servers, log } = await withServers(
      openHarness,
      (file) => ({ mute: stdioServer("--never-initialize", "--log", file), t: stdioServer() }),
      { startupWaitMs: 500 },
    );
    // Gates: the mute server has its initialize request and the healthy one is up (a loaded
    // machine may take longer than the wait to start either); the prompt then waits out the rest.
    await waitForLog(log, (entries) => entries.some((entry) => entry.received === "initialize"));
    await expect.poll(() => stateOf(servers, "t")).toBe("connected");
    harness.server.enqueue({ text: "hello" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    // The wait ended with the mute server said to be still starting, before the model's turn.
    const seen = harness.events
      .filter((event) =>
        ["session.mcp_server_status_changed", "assistant.turn_start"].includes(event.type),
      )
      .map((event) => (event.type === "assistant.turn_start" ? event.type : event.data));
    expect(seen).toEqual([
      { serverName: "t", status: "connected" },
      {
        serverName: "mute",
        status: "pending",
        error:
          "initialize got no answer within 0.5 s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS); the session goes on without its tools until it answers",
      },
      "assistant.turn_start",
    ]);
    expect(toolNames(harness, 0).filter((name) => name.includes("__"))).toContain("t__echo");
    expect(toolNames(harness, 0).some((name) => name.startsWith("mute__"))).toBe(false);
    expect(servers.list().find((server) => server.name === "mute")?.state).toBe("pending");
  });

  test("a slow server joins later: its tools appear from the next model request", async ({
    openHarness,
  }) => {
    const { harness, log, servers } = await withServers(
      openHarness,
      (file) => ({
        slow: stdioServer("--start-gate", `${file}.gate`, "--log", file),
        t: stdioServer(),
      }),
      { startupWaitMs: 100 },
    );
    harness.server.enqueue({ text: "first" }, call("slow__echo", { text: "late" }), {
      text: "done",
    });
    await harness.prompt("one");
    expect(toolNames(harness, 0).some((name) => name.startsWith("slow__"))).toBe(false);
    // The slow server starts serving only now, after the first prompt.
    await writeFile(`${log}.gate`, "");
    await waitForLog(log, (entries) => entries.some((entry) => entry.started === true));
    await expect.poll(() => stateOf(servers, "slow")).toBe("connected");
    await harness.prompt("two");
    expect(toolNames(harness, 1)).toContain("slow__echo");
    const complete = harness.events.filter((event) => event.type === "tool.execution_complete");
    expect(complete.at(-1)?.data).toMatchObject({
      success: true,
      result: { content: "echo: late" },
    });
  });

  test("notifications/tools/list_changed: a tool added during a prompt is offered on its next request", async ({
    openHarness,
  }) => {
    const { harness } = await withServers(openHarness, () => ({ t: stdioServer() }));
    harness.server.enqueue(call("t__grow"), call("t__extra", {}, "call_2"), { text: "done" });
    await harness.prompt("grow");
    expect(toolNames(harness, 0)).not.toContain("t__extra");
    expect(toolNames(harness, 1)).toContain("t__extra");
    const complete = harness.events.filter((event) => event.type === "tool.execution_complete");
    expect(complete.map((event) => event.data.result.content)).toEqual([
      "added extra",
      "extra here",
    ]);
  });

  test("cancel during a call sends notifications/cancelled and answers at once", async ({
    openHarness,
  }) => {
    const { harness, log } = await withServers(openHarness, (file) => ({
      t: stdioServer("--log", file),
    }));
    harness.server.enqueue(call("t__hang"), { text: "after" });
    const controller = new AbortController();
    const running = harness.prompt("hang", controller.signal);
    await waitForLog(log, (entries) => entries.some((entry) => entry.called === "hang"));
    controller.abort();
    expect(await running).toEqual({ stopReason: "cancelled" });
    await waitForLog(log, (entries) => entries.some((entry) => entry.cancelled === "hang"));
    const persisted = shape(await harness.persisted()).slice(1);
    expect(persisted.map((event) => event.type)).toEqual(["user.message", ...TOOL_TURN, "abort"]);
    expect(persisted[5]?.data).toMatchObject({ success: false, error: { code: "cancelled" } });
    expect(persisted[6]?.data).toMatchObject({ status: "cancelled" });
    // The session goes on with the same server.
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
  });

  test("a huge result is cut like command output; the whole result is saved (mode 0600, secrets redacted)", async ({
    openHarness,
  }) => {
    const secret = "mcp-secret-value-1234";
    process.env.TURNLOOP_TEST_MCP_TOKEN = secret;
    try {
      const { harness } = await withServers(openHarness, () => ({ t: stdioServer() }));
      harness.server.enqueue(call("t__big", { chars: 100_000, start: secret }), { text: "ok" });
      await harness.prompt("big");
      const complete = harness.events.find((event) => event.type === "tool.execution_complete");
      const content = String(complete?.data.result.content);
      expect(content.length).toBeLessThan(31_000);
      const saved = /the whole result is saved to (\S+)\]/.exec(content)?.[1];
      expect(saved).toBe(join(harness.session.directory, "mcp-results", "call_1.json"));
      expect(content.endsWith("END")).toBe(true);
      const text = await readFile(String(saved), "utf8");
      expect(text).not.toContain(secret);
      const whole = JSON.parse(text) as { content: Array<{ text: string }> };
      expect(whole.content[0]?.text.startsWith("[redacted:TURNLOOP_TEST_MCP_TOKEN]xxx")).toBe(true);
      expect(whole.content[0]?.text.endsWith("END")).toBe(true);
      expect(statSync(String(saved)).mode & 0o777).toBe(0o600);
      expect(statSync(join(String(saved), "..")).mode & 0o777).toBe(0o700);
    } finally {
      delete process.env.TURNLOOP_TEST_MCP_TOKEN;
    }
  });
});
