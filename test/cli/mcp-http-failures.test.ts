import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { test } from "../support/fixtures.js";
import { startHttpServer } from "../support/mcp/servers.js";

// A fresh user's trial (round 3 session 22): an `http` MCP server with nothing listening, and one
// whose URL answers a web page, were both listed "the server closed the connection"; an HTTP
// server stopped mid-session failed each call with "fetch failed" while it still counted as
// connected; a VS Code-shaped file (`{"servers": …}`) was read as empty without a word. Real
// servers: a port nothing listens on, a plain HTTP server answering 404, the MCP test server
// over Streamable HTTP stopped while the model's reply is held.

/** Listens on a free port of 127.0.0.1 with `handler`; closed when the test ends. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

/** A port of 127.0.0.1 that nothing listens on (taken, then freed). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("remote MCP servers that fail, in turnloop mcp list", () => {
  test("nothing listening and a URL that answers a web page are each said so, with the URL; exit 1", async ({
    cli,
    repository,
  }) => {
    const page = await listen((_request, response) => {
      response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not here</h1>");
    });
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp`;
    const downUrl = `http://127.0.0.1:${await freePort()}/mcp`;
    const servers = {
      down: { type: "http", url: downUrl },
      page: { type: "http", url: pageUrl },
    };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    expect(await cli(["mcp", "list", "--mcp-config", "servers.json"])).toEqual({
      code: 1,
      signal: null,
      stdout:
        `down  http  failed  0 tools  nothing is listening at ${downUrl}\n` +
        `page  http  failed  0 tools  did not answer as an MCP server (HTTP 404 Not Found at ${pageUrl})\n`,
      stderr: "",
    });
  });

  // Session 26's trial: an `sse` server that could not be reached said the library's words
  // (`SSE error: TypeError: fetch failed: connect ECONNREFUSED …`, or `… ENOTFOUND …`) where an
  // `http` one says what happened. Both transports now word it alike.
  test("an sse server with nothing listening or an unknown host is said as an http one is", async ({
    cli,
    repository,
  }) => {
    const port = await freePort();
    const servers = {
      down: { type: "sse", url: `http://127.0.0.1:${port}/sse` },
      downHttp: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
      nowhere: { type: "sse", url: "http://no-such-host.invalid/sse" },
      nowhereHttp: { type: "http", url: "http://no-such-host.invalid/mcp" },
    };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    expect(await cli(["mcp", "list", "--mcp-config", "servers.json"])).toEqual({
      code: 1,
      signal: null,
      stdout:
        `down         sse   failed  0 tools  nothing is listening at http://127.0.0.1:${port}/sse\n` +
        `downHttp     http  failed  0 tools  nothing is listening at http://127.0.0.1:${port}/mcp\n` +
        "nowhere      sse   failed  0 tools  the host no-such-host.invalid was not found (DNS), for http://no-such-host.invalid/sse\n" +
        "nowhereHttp  http  failed  0 tools  the host no-such-host.invalid was not found (DNS), for http://no-such-host.invalid/mcp\n",
      stderr: "",
    });
  });

  test('a VS Code-shaped file ({"servers": …}) is warned about, naming "mcpServers"', async ({
    cli,
    repository,
  }) => {
    const file = join(repository, "vscode.json");
    await writeFile(file, JSON.stringify({ servers: { a: { command: "node" } } }));
    expect(await cli(["mcp", "list", "--mcp-config", "vscode.json"])).toEqual({
      code: 0,
      signal: null,
      stdout: `No MCP servers configured for ${repository}.\n`,
      stderr: `turnloop: warning: MCP config: ${file}: unknown key "servers" (did you mean "mcpServers"?) ignored\n`,
    });
  });
});

describe("an HTTP MCP server that stops during a session", () => {
  test("-p: the call says the server stopped and why, the server is marked failed (stderr), the next request no longer offers its tools", async ({
    cli,
    model,
    repository,
  }) => {
    const http = await startHttpServer();
    // Killed again in case the test failed before the reply stopped it (a no-op after that).
    onTestFinished(() => {
      http.child.kill("SIGKILL");
    });
    await writeFile(
      join(repository, "servers.json"),
      JSON.stringify({ mcpServers: { web: { type: "http", url: http.url } } }),
    );
    let requests = 0;
    model.setResponder(() => {
      requests += 1;
      // The tool call is sent once the server has stopped (the reply waits for its exit).
      return requests === 1
        ? {
            toolCalls: [{ id: "call_1", name: "web__echo", arguments: '{"text":"x"}' }],
            pause: { afterEvents: 0, until: http.stop() },
          }
        : { text: "The server is gone." };
    });
    const result = await cli(["-p", "echo", "--mcp-config", "servers.json", "--allow-tool", "mcp"]);
    expect(result.code).toBe(0);
    const reason = `nothing is listening at ${http.url}`;
    expect(result.stderr).toContain(
      `turnloop: MCP server web failed: ${reason}; its tools are not available\n`,
    );
    const second = model.requests[1]?.body as {
      messages: Array<{ role: string; content: string }>;
      tools?: Array<{ function: { name: string } }>;
    };
    expect(second.messages.at(-1)).toMatchObject({
      role: "tool",
      content: `MCP server web stopped: ${reason}; its tools are unavailable until it is started again (resuming the session starts it anew)`,
    });
    expect((second.tools ?? []).map((tool) => tool.function.name)).not.toContain("web__echo");
  });
});
