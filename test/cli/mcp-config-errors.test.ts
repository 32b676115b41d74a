import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect } from "vitest";
import { ChildFixture } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// A fresh user's trial: an `--mcp-config` file that was not JSON, or an entry that was no server,
// only warned and the run went on (exit 0). A bad MCP file is bad config, like an invalid
// config.json: named with its path and the position or key, exit 64, no model request; with
// --ignore-config-errors the run goes on and reports it. Through the built CLI as a child process.

describe("bad MCP server files", () => {
  test("-p, the interactive start and turnloop config stop with exit 64, naming the file and the position or key", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "broken.json"), '{"mcpServers": {"files": {\n');
    await writeFile(join(repository, "entry.json"), '{"mcpServers": {"files": {"cmd": "x"}}}');
    const cases = [
      {
        file: "broken.json",
        stderr: `${join(repository, "broken.json")} is not valid JSON: line 2, column 1: Expected property name or '}'`,
      },
      {
        file: "entry.json",
        stderr: `${join(repository, "entry.json")}: server "files": needs "command" (stdio) or "url" (http, sse); it has unknown key "cmd"`,
      },
      {
        file: "missing.json",
        stderr: `${join(repository, "missing.json")}: no such file`,
      },
    ];
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      cases.flatMap(({ file, stderr }) =>
        [["-p", "hi"], [], ["config"]].map((args) => ({
          args: [...args, "--mcp-config", file],
          stderr,
        })),
      ),
    );
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("the project's .mcp.json is checked too; --ignore-config-errors goes on and says what it skipped", async ({
    cli,
    model,
    repository,
  }) => {
    const project = join(repository, ".mcp.json");
    await writeFile(project, '{"mcpServers": {"files": {"command": 7}}}');
    const problem = `${project}: server "files": command must be a string, not the number 7`;
    expect(await cli(["-p", "hi"])).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${problem}\n`,
    });
    expect(model.requests).toHaveLength(0);

    model.enqueue({ text: "went on" });
    const ignored = await cli(["-p", "hi", "--quiet", "--ignore-config-errors"]);
    expect(ignored).toEqual({
      code: 0,
      signal: null,
      stdout: "went on\n",
      stderr: `turnloop: warning: MCP config: ${problem}\n`,
    });
  });
});

// The same trial: `turnloop mcp list` with a bad --mcp-config only warned and exited 0. It now
// stops as every face does (exit 64, the file and the position or key); --ignore-config-errors
// lists the good entries and says what it skipped. A program that is no MCP server is a server
// that failed to start: its row says why, exit 1 (README, exit codes).
describe("bad MCP server files in turnloop mcp list", () => {
  test("exit 64 naming the file and the position or key, as the faces; --ignore-config-errors goes on", async ({
    cli,
    environment,
    repository,
  }) => {
    await writeFile(join(repository, "broken.json"), '{"mcpServers": {"files": {\n');
    await writeFile(join(repository, "entry.json"), '{"mcpServers": {"files": {"cmd": "x"}}}');
    const problems = {
      "broken.json": `${join(repository, "broken.json")} is not valid JSON: line 2, column 1: Expected property name or '}'`,
      "entry.json": `${join(repository, "entry.json")}: server "files": needs "command" (stdio) or "url" (http, sse); it has unknown key "cmd"`,
      "missing.json": `${join(repository, "missing.json")}: no such file`,
    };
    const refused = await usageErrorOutcomes(
      { cli, environment, repository },
      Object.entries(problems).flatMap(([file, problem]) =>
        [
          ["mcp", "list"],
          ["mcp", "list", "--json"],
        ].map((args) => ({
          args: [...args, "--mcp-config", file],
          stderr: problem,
        })),
      ),
    );
    expect(refused.actual).toEqual(refused.expected);
    const ignored = ["mcp", "list", "--ignore-config-errors", "--mcp-config"];
    const results = await Promise.all(
      Object.keys(problems).map(async (file) => ({ file, ...(await cli([...ignored, file])) })),
    );
    expect(results).toEqual(
      Object.entries(problems).map(([file, problem]) => ({
        file,
        code: 0,
        signal: null,
        stdout: `No MCP servers configured for ${repository}.\n`,
        stderr: `turnloop: warning: MCP config: ${problem}\n`,
      })),
    );
  });

  test("a program that is no MCP server: its row says it failed and why, exit 1", async ({
    cli,
    repository,
  }) => {
    // Reads the first request, then exits without answering.
    const notServer = {
      command: process.execPath,
      args: ["-e", "process.stdin.once('data', () => process.exit(0))"],
    };
    await writeFile(
      join(repository, "servers.json"),
      JSON.stringify({ mcpServers: { quiet: notServer } }),
    );
    expect(await cli(["mcp", "list", "--mcp-config", "servers.json"])).toEqual({
      code: 1,
      signal: null,
      stdout: "quiet  stdio  failed  0 tools  the server exited with exit code 0\n",
      stderr: "",
    });
  });
});

// A fresh user's trial: `cat` as a server was listed "failed … Method not found" (its own echo
// of the client's refusal), a JSON-RPC server answering errors the same, a program printing text
// "the server closed the connection". Each row now says the program did not answer as an MCP
// server and what it printed first (cut at 120 characters); a program that printed nothing keeps
// its failure's own words (above). Exit 1 as for any server that failed to start.
describe("programs that are no MCP server in turnloop mcp list", () => {
  test("each row says so with what it printed first, exit 1", async ({ cli, repository }) => {
    const answersErrors = [
      "require('readline').createInterface({ input: process.stdin }).on('line', (line) => {",
      "  const { id } = JSON.parse(line);",
      "  if (id !== undefined) console.log(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));",
      "});",
    ].join("\n");
    const servers = {
      echoes: { command: "cat" },
      errors: { command: process.execPath, args: ["-e", answersErrors] },
      talks: { command: "sh", args: ["-c", "echo Listening on port 3000"] },
    };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    const result = await cli(["mcp", "list", "--mcp-config", "servers.json"]);
    const request =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"VERSION",' +
      '"capabilities":{},"clientInfo":{"name":"turnloop","version":"';
    const notServer = "did not answer as an MCP server";
    expect({
      ...result,
      stdout: result.stdout.replace(/"protocolVersion":"[^"]+"/, '"protocolVersion":"VERSION"'),
    }).toEqual({
      code: 1,
      signal: null,
      stdout:
        `echoes  stdio  failed  0 tools  ${notServer}: it printed back the initialize request it was sent: ` +
        // 120 characters as printed: the protocol version is a date (10 characters), not VERSION.
        `${request.slice(0, 120 - "2025-11-25".length + "VERSION".length)}…\n` +
        `errors  stdio  failed  0 tools  ${notServer}: initialize failed (Method not found); what it printed first: ` +
        '{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}\n' +
        `talks   stdio  failed  0 tools  ${notServer}: initialize failed (the server exited with exit code 0); ` +
        "what it printed first: Listening on port 3000\n",
      stderr: "",
    });
  });
});

// A fresh user's check: a program that prints a line and then waits (never answering
// initialize) was listed "pending" when the start-up wait ended, with exit 0, as if it might
// still come up. It failed to start within the wait: the row says so, exit 1.
describe("a program that never answers in turnloop mcp list", () => {
  test("its row says it got no answer within the start-up wait, with what it printed; exit 1", async ({
    cli,
    repository,
  }) => {
    const servers = {
      chatty: { command: "sh", args: ["-c", "echo starting >&2; echo Ready.; exec sleep 60"] },
      silent: { command: "sleep", args: ["60"] },
    };
    await writeFile(join(repository, "servers.json"), JSON.stringify({ mcpServers: servers }));
    // 3 s: room for sh to print its two lines on a loaded machine (the list waits that long).
    const result = await cli(["mcp", "list", "--mcp-config", "servers.json"], {
      env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "3000" },
    });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout:
        "chatty  stdio  failed  0 tools  did not answer as an MCP server: initialize failed " +
        "(initialize got no answer within 3 s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS)); what it printed first: Ready. (stderr: starting)\n" +
        "silent  stdio  failed  0 tools  initialize got no answer within 3 s (the start-up wait, TURNLOOP_MCP_STARTUP_WAIT_MS)\n",
      stderr: "",
    });
  });
});

describe("bad MCP server files in turnloop acp", () => {
  const fixture = ChildFixture.forEachTest();

  test("initialize is answered, session requests fail naming the file, exit 64 at stdin's close", async () => {
    const file = join(fixture.home, "mcp.json");
    await writeFile(file, "{ mcpServers: {} }\n");
    const agent = fixture.startAgent();
    expect(await agent.sessionStartRefusal()).toEqual({
      protocolVersion: acp.PROTOCOL_VERSION,
      newSession: {
        code: -32603,
        message: `turnloop cannot start sessions: ${file} is not valid JSON: line 1, column 3: Expected property name or '}'`,
      },
    });
    expect(fixture.server.requests).toEqual([]);
    expect(await agent.end()).toBe(64);
  });
});
