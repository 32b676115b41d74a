import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "../acp/child-process.js";
import { RawAcpAgent } from "../acp/raw-lines.js";
import { spawnServer } from "../server/raw-peer.js";
import { CLI_PATH } from "../support/cli.js";

// Every message turnloop itself writes to stderr starts `turnloop: `, whichever face writes it
// (README, "Exit codes of `turnloop -p`" and above): `turnloop acp` and the `--headless` server
// too, whose lines once started `turnloop acp: ` and `turnloop server: `. A warning starts
// `turnloop: warning: ` (src/events/errors.ts), on every face: the headless server's
// missing token, an MCP entry left out, a retried request, an untrusted project's servers.

const fixture = ChildFixture.forEachTest();

const LONG_NAME = "m".repeat(70);

describe("one stderr prefix on every face", () => {
  test("turnloop acp: an invalid request, a line over the limit, an MCP entry", async () => {
    const agent = new RawAcpAgent(
      fixture.environment({ TURNLOOP_MAX_MESSAGE_BYTES: "400" }),
      fixture.cwd,
    );
    await agent.request(1, "initialize", { protocolVersion: 1 });
    agent.write('{"jsonrpc":"1.0","id":"v","method":"session/list","params":{}}\n');
    await agent.answer("v");
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: "big",
      method: "session/list",
      params: { pad: "p".repeat(500) },
    });
    agent.write(`${big}\n`);
    await agent.answer("big");
    const server = { name: LONG_NAME, command: "true", args: [], env: [] };
    const created = await agent.request(2, "session/new", {
      cwd: fixture.cwd,
      mcpServers: [server],
    });
    const { sessionId } = created.result as { sessionId: string };
    const elsewhere = tmpdir();
    await agent.request(3, "session/load", { sessionId, cwd: elsewhere, mcpServers: [] });
    expect(await agent.end()).toBe(0);
    expect(agent.answers().map((answer) => [answer.id, "error" in answer])).toEqual([
      [1, false],
      ["v", true],
      ["big", true],
      [2, false],
      // Another folder's cwd is the editor's error now (test/acp/load-elsewhere.test.ts).
      [3, true],
    ]);
    expect(agent.stderr).toBe(
      [
        'turnloop: answered request "v": "jsonrpc" must be "2.0", not "1.0"',
        `turnloop: dropped a ${big.length}-byte message (the limit is 400 bytes, TURNLOOP_MAX_MESSAGE_BYTES); request "big" gets an error`,
        `turnloop: warning: MCP server "${LONG_NAME}" failed: mcpServers[0]: server name "${LONG_NAME}" must be 1-64 printable characters; its tools are not available`,
        "",
      ].join("\n"),
    );
  });

  test("turnloop --headless --stdio: an empty frame and a body that is not JSON", async () => {
    const { peer, stderr, exit, child } = spawnServer(
      ["--stdio"],
      fixture.environment(),
      fixture.cwd,
    );
    expect((await peer.request("ping", { message: "a" })).result).toMatchObject({
      message: "pong: a",
    });
    peer.sendRaw("Content-Length: 0\r\n\r\n");
    await peer.waitFor((message) => message.id === null);
    peer.sendRaw("Content-Length: 9\r\n\r\n{not json");
    await peer.waitFor((message) => message.id === null && message.error?.code === -32700);
    expect((await peer.request("ping", { message: "b" })).result).toMatchObject({
      message: "pong: b",
    });
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(stderr()).toBe(
      [
        "turnloop: an empty message (Content-Length: 0) answered as an invalid request",
        `turnloop: unreadable message skipped: ${parseErrorOf("{not json")}`,
        "",
      ].join("\n"),
    );
  });

  test("turnloop --headless --port on loopback without a token: a warning, with the prefix", async () => {
    const child = spawn(process.execPath, [CLI_PATH, "--headless", "--port", "0"], {
      env: fixture.environment(),
      cwd: fixture.cwd,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The gate: the server listens (the warning is written before it does); then its input ends.
    await new Promise<void>((resolve) => {
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (text: string) => {
        output += text;
        if (/^turnloop server listening on port \d+\n/.test(output)) {
          resolve();
        }
      });
    });
    child.stdin.end();
    expect(await exit).toBe(0);
    const lines = stderr.split("\n");
    expect(lines[0]).toBe(
      "turnloop: warning: no TURNLOOP_CONNECTION_TOKEN: any local process may connect",
    );
    expect(lines.filter((line) => line !== "" && !line.startsWith("turnloop: "))).toEqual([]);
  });
});

/** What `JSON.parse` says of `text` on this Node (vscode-jsonrpc passes its message on). */
function parseErrorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parsed`);
}
