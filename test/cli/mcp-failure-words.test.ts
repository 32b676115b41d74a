import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { stdioEntry } from "../support/mcp/servers.js";

// A fresh user's trial (round 3 session 26): MCP failures were said in the libraries' own words:
// `spawn no-such-program-xyz ENOENT`, `SSE error: Non-200 status code (404)`, and a call past its
// server's `timeout` `MCP tool h/hang failed: Request timed out`. Real parts: a command that does
// not exist, a plain HTTP server answering 404, the test server's tool that never answers.

/** Listens on a free port of 127.0.0.1 answering every request 404; closed when the test ends. */
async function notFoundServer(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not here</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

describe("MCP failures in turnloop's words", () => {
  test("mcp list: a command not found and an sse URL answering 404 are said so; exit 1", async ({
    cli,
    repository,
  }) => {
    const page = await notFoundServer();
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/sse`;
    const servers = { missing: { command: "no-such-program-xyz" }, old: { type: "sse", url } };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    expect(await cli(["mcp", "list", "--mcp-config", "servers.json"])).toEqual({
      code: 1,
      signal: null,
      stdout:
        "missing  stdio  failed  0 tools  command not found: no-such-program-xyz\n" +
        `old      sse    failed  0 tools  did not answer as an MCP server (HTTP 404 at ${url})\n`,
      stderr: "",
    });
  });

  // Its `session.mcp_server_status_changed` event is ephemeral (never in events.jsonl).
  test("-p: a command not found is said so on stderr", async ({ cli, model, repository }) => {
    const servers = { missing: { command: "no-such-program-xyz" } };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    model.enqueue({ text: "Done." });
    const result = await cli(["-p", "hi", "--mcp-config", "servers.json"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "turnloop: MCP server missing failed: command not found: no-such-program-xyz; its tools are not available\n",
    );
  });

  test("-p: a call past the server's timeout names the wait and the setting, to the model and in the log", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    const servers = { h: { ...stdioEntry(), timeout: 500 } };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "h__hang", arguments: "{}" }] },
      { text: "It hung." },
    );
    const result = await cli(["-p", "hang", "--mcp-config", "servers.json", "--allow-tool", "mcp"]);
    expect(result.code).toBe(0);
    const words = "MCP tool h/hang failed: did not answer within 0.5 s (its `timeout` setting)";
    const second = model.requests[1]?.body as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(second.messages.at(-1)).toMatchObject({ role: "tool", content: words });
    const events = await loggedEvents(printedSessionId(result.stderr));
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(JSON.stringify(complete)).toContain(JSON.stringify(words).slice(1, -1));
  });
});

describe("a call of a tool of an untrusted project's server", () => {
  // Trial 26: it was answered "Tool 'proj__echo' does not exist", though README promises a
  // stopped server's tools never get that.
  test("-p: the model is told the server was not started, why, and how to allow it", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    await writeFile(
      join(repository, ".mcp.json"),
      JSON.stringify({ mcpServers: { proj: stdioEntry() } }),
    );
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "proj__echo", arguments: '{"text":"x"}' }] },
      { text: "Not started." },
    );
    const result = await cli(["-p", "echo", "--allow-tool", "mcp"]);
    expect(result.code).toBe(0);
    const words = `MCP server proj was not started: this project is not trusted; run \`turnloop mcp trust\` in ${repository} to allow its servers from the next session`;
    const second = model.requests[1]?.body as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(second.messages.at(-1)).toMatchObject({ role: "tool", content: words });
    const events = await loggedEvents(printedSessionId(result.stderr));
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: false, error: { message: words } });
  });
});
