import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH, outputOf } from "../support/cli.js";
import { test } from "../support/fixtures.js";
import { livePids, stdioEntry, waitForLog } from "../support/mcp/servers.js";

// A fresh user's trial: the piped face (no terminal, no -p) printed "no prompt was sent: the
// session was not saved" at the end of its input and then never exited while an MCP server was
// still starting: the servers were gathered in the background and started after the session had
// closed, so nothing stopped them and their pipes kept turnloop alive. `/mcp` said "no MCP
// servers" while one was starting. Now closing a session stops servers still starting (their
// process groups are killed), a session that is closing starts none, and `/mcp` waits for the
// gathering and lists a starting server as starting.

describe("the piped face with an MCP server that never answers initialize", () => {
  test("/mcp lists it as starting; at the end of input the face exits and the server is stopped", async ({
    environment,
    repository,
  }) => {
    const log = join(repository, "server.log");
    const config = join(repository, "m.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { slow: stdioEntry("--never-initialize", "--log", log) } }),
    );
    const child = spawn(process.execPath, [CLI_PATH, "--mcp-config", config], {
      cwd: repository,
      env: environment(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const result = outputOf(child);
    // The gate: the server process is running (and will never answer) before any input is given.
    await waitForLog(log, (entries) => entries.some((entry) => entry.started === true));
    child.stdin.end("/mcp\n");
    const { code, signal, stdout, stderr } = await result;
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: "" });
    expect(stdout.split("\n").slice(2)).toEqual([
      "> ",
      "/mcp",
      "  slow (stdio): starting, 0 tools",
      "> ",
      "no prompt was sent: the session was not saved",
      "",
    ]);
    expect(livePids(log)).toEqual([]);
  });

  test("input that ends at once, before the servers are gathered: the face exits, no server is left", async ({
    cli,
    repository,
  }) => {
    const log = join(repository, "server.log");
    const config = join(repository, "m.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { slow: stdioEntry("--never-initialize", "--log", log) } }),
    );
    const result = await cli(["--mcp-config", config], { stdin: "" });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout.split("\n").slice(2)).toEqual([
      "> ",
      "no prompt was sent: the session was not saved",
      "",
    ]);
    expect(livePids(log)).toEqual([]);
  });
});
