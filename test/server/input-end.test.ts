import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { eventsPath } from "../../src/session/paths.js";
import { fixtureForFile } from "../sdk/support.js";
import { CLI_PATH } from "../support/cli.js";
import { RawPeer, spawnServer } from "./raw-peer.js";

// A request followed at once by the end of stdin is answered before `turnloop --headless
// --stdio` exits (src/server/framing.ts `onEnd`): a `ping`, or a body that is not JSON, followed
// by the end once got no answer at all.

const fixture = fixtureForFile();

function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function request(id: number, method: string, params: unknown): string {
  return frame(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
}

describe("turnloop --headless --stdio: the end of stdin right after a request", () => {
  test("ping, then the end, in one write: answered, exit 0", async () => {
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    child.stdin.end(request(1, "ping", { message: "last" }) + request(2, "ping", {}));
    expect(await exit).toBe(0);
    expect(peer.messages).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        result: { message: "pong: last", timestamp: expect.any(String), protocolVersion: 3 },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        result: { message: "pong: ", timestamp: expect.any(String), protocolVersion: 3 },
      },
    ]);
    expect(peer.garbage).toBe("");
    expect(stderr()).toBe("");
  });

  test("a body that is not JSON, then the end: -32700 with id null, exit 0", async () => {
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    child.stdin.end(frame("{not json"));
    expect(await exit).toBe(0);
    const said = parseErrorOf("{not json");
    expect(peer.messages).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${said}` } },
    ]);
    expect(stderr()).toBe(`turnloop: unreadable message skipped: ${said}\n`);
  });

  test("session.send, then the end: answered, then the prompt is cancelled and the log ends", async () => {
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const created = await peer.request("session.create", {});
    const { sessionId } = created.result as { sessionId: string };
    // The model holds its reply until its connection closes: only the cancel ends the prompt.
    fixture.model.enqueue({
      text: "held",
      pause: { afterEvents: 0, until: new Promise(() => {}) },
    });
    child.stdin.end(request(3, "session.send", { sessionId, prompt: "hi" }));
    expect(await exit).toBe(0);
    const answer = peer.messages.find((message) => message.id === 3);
    expect(answer).toEqual({ jsonrpc: "2.0", id: 3, result: { messageId: expect.any(String) } });
    const log = await readEventLog(eventsPath(fixture.home, sessionId));
    const types = log.events.map((event) => event.type);
    // Cancelled before its model request was sent, or while it waited for the reply.
    const before = ["session.start", "user.message", "abort", "session.shutdown"];
    const during = [
      ...before.slice(0, 2),
      "assistant.turn_start",
      "assistant.turn_end",
      ...before.slice(2),
    ];
    expect([before, during]).toContainEqual(types);
    expect(stderr()).toBe("");
  });
});

describe("turnloop --headless --port: a client ending its side right after a request", () => {
  test("ping, then the end of the client's side: answered, then the server closes its side", async () => {
    const server = spawn(process.execPath, [CLI_PATH, "--headless", "--port", "0"], {
      env: fixture.env,
      cwd: fixture.cwd,
    });
    try {
      const port = await listeningPort(server.stdout);
      const socket = new Socket();
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.connect(port, "127.0.0.1", () => resolve());
      });
      const peer = new RawPeer(socket, socket);
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.end(request(1, "ping", { message: "last" }));
      await closed;
      expect(peer.messages).toEqual([
        {
          jsonrpc: "2.0",
          id: 1,
          result: { message: "pong: last", timestamp: expect.any(String), protocolVersion: 3 },
        },
      ]);
    } finally {
      server.kill("SIGKILL");
    }
  });
});

/** The port of `turnloop server listening on port N`, once stdout holds that line. */
function listeningPort(stdout: NodeJS.ReadableStream): Promise<number> {
  return new Promise((resolve) => {
    let output = "";
    stdout.setEncoding("utf8");
    stdout.on("data", (text: string) => {
      output += text;
      const match = /^turnloop server listening on port (\d+)\n/.exec(output);
      if (match !== null) {
        resolve(Number(match[1]));
      }
    });
  });
}

/** What `JSON.parse` says of `text` on this Node (vscode-jsonrpc passes its message on). */
function parseErrorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parsed`);
}
