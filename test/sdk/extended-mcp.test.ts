import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { stdioEntry } from "../support/mcp/servers.js";
import { useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, extended: `session.mcp.list` / `disable` / `enable` / `restartServer`, driven through
 * the official `@github/copilot-sdk` over the built CLI against the fake model and a real MCP
 * server.
 */

const setup = useCopilotClient();

describe("session.mcp", () => {
  test("list, disable, enable and restartServer change the servers and the tools offered; the app sees each status", async () => {
    const mcpServers = { files: { type: "local" as const, ...stdioEntry(), tools: ["echo"] } };
    const session = await setup.client.createSession({
      onPermissionRequest: approveAll,
      mcpServers,
    });
    const offered = async () => {
      const from = setup.fixture.model.requests.length;
      setup.fixture.model.enqueue({ text: "ok" });
      await session.sendAndWait({ prompt: "which tools?" });
      const tools = chatBody(setup.fixture.model.requests[from]).tools ?? [];
      return tools.map((tool) => tool.function.name).filter((name) => name.startsWith("files"));
    };
    expect(await offered()).toEqual(["files-echo"]);
    expect(await session.rpc.mcp.list()).toEqual({
      servers: [{ name: "files", status: "connected" }],
    });

    // From here on: the first connect may come before or after the subscription.
    const statuses: string[] = [];
    session.on((event: SessionEvent) => {
      if (event.type === "session.mcp_server_status_changed") {
        statuses.push(`${event.data.serverName} ${event.data.status}`);
      }
    });
    await session.rpc.mcp.disable({ serverName: "files" });
    expect(await session.rpc.mcp.list()).toEqual({
      servers: [{ name: "files", status: "disabled" }],
    });
    expect(await offered()).toEqual([]);

    await session.rpc.mcp.enable({ serverName: "files" });
    expect(await session.rpc.mcp.list()).toEqual({
      servers: [{ name: "files", status: "connected" }],
    });
    expect(await offered()).toEqual(["files-echo"]);

    await session.rpc.mcp.restartServer({ serverName: "files" });
    expect(await session.rpc.mcp.list()).toEqual({
      servers: [{ name: "files", status: "connected" }],
    });
    expect(await offered()).toEqual(["files-echo"]);
    expect(statuses).toEqual([
      "files stopped",
      "files connected",
      "files stopped",
      "files connected",
    ]);

    await expect(session.rpc.mcp.disable({ serverName: "nope" })).rejects.toThrow(
      'session.mcp.disable: no MCP server "nope" in this session (its servers: files)',
    );
    await session.disconnect();

    const without = await setup.client.createSession({ onPermissionRequest: approveAll });
    expect(await without.rpc.mcp.list()).toEqual({ servers: [] });
    await expect(without.rpc.mcp.enable({ serverName: "files" })).rejects.toThrow(
      "session.mcp.enable: session",
    );
    await without.disconnect();
  });
});
