import { join } from "node:path";
import {
  CopilotClient,
  type SessionEvent as CopilotEvent,
  type PermissionRequest,
  RuntimeConnection,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { livePids, stdioEntry, waitForLog } from "../support/mcp/servers.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, normalise, recordEvents, requestMessages } from "./support.js";

const fixture = fixtureForFile();

function toolNames(request: number): string[] {
  const body = fixture.model.requests.at(request)?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("MCP servers through the SDK server", () => {
  test("turnloop/sdk: mcpServers in createSession; the call is asked as kind mcp and logged with the server", async () => {
    const log = join(fixture.cwd, "sdk-server.log");
    const client = fixture.client();
    const asked: unknown[] = [];
    const session = await client.createSession({
      mcpServers: { t: stdioEntry("--log", log) },
      onPermissionRequest: (request) => {
        asked.push(request);
        return { kind: "approve-once" };
      },
    });
    const events = recordEvents(session);
    fixture.model.enqueue(callingTools(["call_1", "t-echo", { text: "sdk" }]), { text: "done" });
    await session.sendAndWait({ prompt: "echo sdk" });
    expect(toolNames(-2)).toContain("t-echo");
    expect(requestMessages(fixture.model, -1).at(-1)).toMatchObject({
      role: "tool",
      content: "echo: sdk",
    });
    const toolEvents = normalise(events, fixture).filter((event) =>
      /^(tool|permission)\./.test(event.type),
    );
    expect(toolEvents).toEqual([
      {
        type: "tool.execution_start",
        data: {
          toolCallId: "call_1",
          toolName: "t-echo",
          arguments: { text: "sdk" },
          mcpServerName: "t",
          mcpToolName: "echo",
        },
      },
      {
        type: "permission.requested",
        data: expect.objectContaining({
          requestId: "request-1",
          toolCallId: "call_1",
          toolName: "t-echo",
          kind: "mcp",
          title: "t: echo",
          permissionRequest: expect.objectContaining({
            kind: "mcp",
            serverName: "t",
            toolName: "echo",
            toolTitle: "t: echo",
            args: { text: "sdk" },
            readOnly: false,
          }),
        }),
      },
      {
        type: "permission.completed",
        data: expect.objectContaining({ requestId: "request-1", decision: "allowed" }),
      },
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "t-echo",
          success: true,
          result: { content: "echo: sdk" },
        },
      },
    ]);
    expect(asked).toEqual([expect.objectContaining({ kind: "mcp", serverName: "t" })]);
    await waitForLog(log, (entries) => entries.length > 0);
    await client.stop();
    expect(livePids(log)).toEqual([]);
  });

  // An MCP tool's result with `isError: true` is `success: false` for the app, with the text the
  // model got (test/tools/mcp-error-wires.test.ts: said failed on every wire).
  test("turnloop/sdk: a call the server answers with isError is success: false, said failed", async () => {
    const client = fixture.client();
    const session = await client.createSession({
      mcpServers: { t: stdioEntry() },
      onPermissionRequest: () => ({ kind: "approve-once" }),
    });
    const events = recordEvents(session);
    fixture.model.enqueue(callingTools(["call_1", "t-fail", {}]), { text: "noted" });
    await session.sendAndWait({ prompt: "try" });
    const failed = "MCP tool t/fail failed: the widget is broken";
    expect(requestMessages(fixture.model, -1).at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_1",
      content: failed,
    });
    expect(
      normalise(events, fixture).filter((event) => event.type === "tool.execution_complete"),
    ).toEqual([
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_1",
          toolName: "t-fail",
          success: false,
          result: { content: failed },
          error: { message: failed, code: "failed" },
        },
      },
    ]);
    await client.stop();
  });

  test("the official @github/copilot-sdk: mcpServers in its session config reach the model", async () => {
    const log = join(fixture.cwd, "copilot-server.log");
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env }),
      workingDirectory: fixture.cwd,
    });
    const asked: PermissionRequest[] = [];
    try {
      const session = await client.createSession({
        model: "gpt-4.1",
        provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
        mcpServers: { files: { type: "local", ...stdioEntry("--log", log), tools: ["echo"] } },
        onPermissionRequest: (request) => {
          asked.push(request);
          return { kind: "approve-once" };
        },
      });
      const types: string[] = [];
      session.on((event: CopilotEvent) => types.push(event.type));
      fixture.model.enqueue(callingTools(["call_c", "files-echo", { text: "copilot" }]), {
        text: "The server said echo: copilot.",
      });
      const reply = await session.sendAndWait({ prompt: "Use the files server to echo copilot" });
      expect(reply?.data.content).toBe("The server said echo: copilot.");
      // `tools: ["echo"]` offers only that tool of the server.
      expect(toolNames(-2).filter((name) => name.startsWith("files-"))).toEqual(["files-echo"]);
      expect(asked.map((request) => request.kind)).toEqual(["mcp"]);
      expect(types.filter((type) => /^(tool|permission)\./.test(type))).toEqual([
        "tool.execution_start",
        "permission.requested",
        "permission.completed",
        "tool.execution_complete",
      ]);
      expect(requestMessages(fixture.model, -1).at(-1)).toMatchObject({
        role: "tool",
        content: "echo: copilot",
      });
    } finally {
      await client.stop();
    }
    expect(livePids(log)).toEqual([]);
  });
});
