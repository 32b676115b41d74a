import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { serverLog, startHttpServer } from "../support/mcp/servers.js";

// Session 28: an MCP server configured at `http://user:pass@host/mcp` never connected (fetch
// refuses a URL with credentials). The credentials are now sent as HTTP Basic `Authorization`
// and taken out of the URL (src/tools/mcp/remote-transport.ts); a configured `Authorization`
// header wins. A real MCP server over Streamable HTTP logs the header it got; the password shows
// nowhere turnloop writes.

const PASSWORD = "s3cret!pw";

describe("an MCP server URL with user:pass@", () => {
  test.for([
    {
      name: "is sent as HTTP Basic authorization",
      headers: undefined,
      authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString("base64")}`,
    },
    {
      name: "gives way to a configured Authorization header",
      headers: { authorization: "Bearer tok-123" },
      authorization: "Bearer tok-123",
    },
  ])("$name", async ({ headers, authorization }, { cli, model, repository }) => {
    const log = join(repository, "server.log");
    const server = await startHttpServer("--log", log);
    try {
      const url = server.url.replace("http://", `http://alice:${encodeURIComponent(PASSWORD)}@`);
      const config = join(repository, "servers.json");
      const entry = { type: "http", url, ...(headers === undefined ? {} : { headers }) };
      await writeFile(config, JSON.stringify({ mcpServers: { web: entry } }));
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "web__echo", arguments: '{"text":"hi"}' }] },
        { text: "The server echoed." },
      );
      const result = await cli([
        "-p",
        "echo",
        "-q",
        "--mcp-config",
        config,
        "--allow-tool",
        "mcp(web)",
      ]);
      expect(result).toEqual({ code: 0, signal: null, stdout: "The server echoed.\n", stderr: "" });
      const tool = chatMessages(model, -1).find((message) => message.role === "tool");
      expect(tool?.content).toBe("echo: hi");
      const sent = serverLog(log).flatMap((line) =>
        typeof line.authorization === "string" ? [line.authorization] : [],
      );
      expect(new Set(sent)).toEqual(new Set([authorization]));
    } finally {
      await server.stop();
    }
  });

  test("mcp list of such a server never shows its password", async ({ cli, repository }) => {
    const config = join(repository, "servers.json");
    const url = `http://alice:${encodeURIComponent(PASSWORD)}@127.0.0.1:9/mcp`;
    await writeFile(config, JSON.stringify({ mcpServers: { web: { type: "http", url } } }));
    const result = await cli(["mcp", "list", "--mcp-config", config]);
    expect(result.stdout).toMatch(/^web {2}http {2}failed/);
    expect(`${result.stdout}${result.stderr}`).not.toContain("s3cret");
  });
});
