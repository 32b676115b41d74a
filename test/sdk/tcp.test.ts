import { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, TurnloopClient } from "../../src/sdk/index.js";
import { RawPeer } from "../server/raw-peer.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

const fixture = fixtureForFile();
let tcp: TcpServer;
let port: number;

beforeAll(async () => {
  tcp = await startTcpServer(fixture, { TURNLOOP_CONNECTION_TOKEN: "s3cret" });
  port = tcp.port;
});
afterAll(async () => {
  await tcp.stop();
});

function rawConnection(): Promise<{ peer: RawPeer; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    socket.once("error", reject);
    socket.connect(port, "127.0.0.1", () => resolve({ peer: new RawPeer(socket, socket), socket }));
  });
}

describe("turnloop --headless --port N", () => {
  test("a connection token is required before anything else, and a wrong one hangs up", async () => {
    const { peer, socket } = await rawConnection();
    const early = await peer.request("ping", {});
    expect(early.error?.code).toBe(-32001);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const wrong = await peer.request("connect", { token: "guess" });
    expect(wrong.error).toEqual({
      code: -32001,
      message: "AUTHENTICATION_FAILED: connect: wrong or missing connection token",
    });
    await closed;
    await expect(new TurnloopClient({ port, connectionToken: "guess" }).start()).rejects.toThrow(
      /connection token/,
    );
  });

  test("a malformed frame closes only its own connection, with an answer (issue 11)", async () => {
    const { peer, socket } = await rawConnection();
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    peer.sendRaw("Content-Length: twelve\r\n\r\n{}");
    const answer = await peer.waitFor((message) => message.id === null);
    expect(answer.error).toEqual({
      code: -32700,
      message:
        'unreadable frame: Content-Length "twelve" is not a positive whole number; closing the connection',
    });
    await closed;
    // The server goes on serving other connections.
    const { peer: other } = await rawConnection();
    expect((await other.request("connect", { token: "s3cret" })).result).toMatchObject({
      ok: true,
    });
    expect(tcp.process.exitCode).toBe(null);
  });

  test("our SDK over TCP: a custom tool turn, then shutdown ends the server", async () => {
    const client = new TurnloopClient({ port, connectionToken: "s3cret", cwd: fixture.cwd });
    const echo = defineTool("echo_upper", {
      parameters: z.object({ text: z.string() }),
      readOnly: true,
      handler: ({ text }) => text.toUpperCase(),
    });
    const session = await client.createSession({ tools: [echo] });
    fixture.model.enqueue(callingTools(["call_e", "echo_upper", { text: "hello" }]), {
      text: "HELLO it is.",
    });
    const types: string[] = [];
    session.on((event) => types.push(event.type));
    const reply = await session.sendAndWait({ prompt: "shout hello" });
    expect(reply?.data.content).toBe("HELLO it is.");
    expect(types.filter((type) => type.startsWith("tool.") || type.startsWith("external"))).toEqual(
      [
        "tool.execution_start",
        "external_tool.requested",
        "external_tool.completed",
        "tool.execution_complete",
      ],
    );
    expect((await client.listSessions()).map((entry) => entry.sessionId)).toContain(
      session.sessionId,
    );
    // A client of a server it did not start leaves it running on stop.
    await client.stop();
    expect(tcp.process.exitCode).toBe(null);
    const { peer } = await rawConnection();
    await peer.request("connect", { token: "s3cret" });
    const shutdown = await peer.request("runtime.shutdown", {});
    expect(shutdown.result).toBe(null);
    expect(await tcp.exited).toBe(0);
  });
});
