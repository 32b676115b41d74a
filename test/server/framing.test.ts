import { describe, expect, test } from "vitest";
import { fixtureForFile } from "../sdk/support.js";
import { spawnServer } from "./raw-peer.js";

// Issue 11: after a malformed frame header the SDK server never leaves a client waiting: it
// answers with a JSON-RPC error (id null), says why on stderr, and closes the connection.

const fixture = fixtureForFile();

const ping = JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping", params: {} });

const FAULTS: Array<[string, string, number, RegExp]> = [
  [
    "no Content-Length",
    `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${ping}`,
    -32700,
    /without Content-Length/,
  ],
  ["a non-numeric length", `Content-Length: abc\r\n\r\n${ping}`, -32700, /"abc" is not a positive/],
  ["a negative length", `Content-Length: -5\r\n\r\n${ping}`, -32700, /"-5" is not a positive/],
  ["a length that is too small", `Content-Length: 10\r\n\r\n${ping}`, -32700, /malformed header/],
  ["LF-only line ends", `Content-Length: ${ping.length}\n\n${ping}`, -32700, /bare LF/],
  [
    "a length over the limit",
    "Content-Length: 99999999999\r\n\r\n{",
    -32600,
    /99999999999-byte message is larger than the limit of 1048576 bytes/,
  ],
];

describe("turnloop --headless --stdio: framing faults", () => {
  test.each(FAULTS)(
    "%s: answered with id null, a stderr line, and the connection closes",
    async (_name, bytes, code, message) => {
      const { child, peer, stderr, exit } = spawnServer(
        ["--stdio"],
        { ...fixture.env, TURNLOOP_MAX_MESSAGE_BYTES: String(1024 * 1024) },
        fixture.cwd,
      );
      expect((await peer.request("ping", { message: "before" })).result).toMatchObject({
        message: "pong: before",
      });
      // The fault, then a valid request right after it: the client must not wait for its answer.
      peer.sendRaw(bytes);
      peer.sendFrame({ jsonrpc: "2.0", id: 100, method: "ping", params: {} });
      // A frame read before the fault is answered first (a too-short body: its parse error).
      const answer = await peer.waitFor(
        (received) =>
          received.id === null && /closing the connection$/.test(received.error?.message ?? ""),
        5_000,
      );
      expect(answer.error).toEqual({
        code,
        message: expect.stringMatching(message),
      });
      expect(answer.error?.message).toMatch(/; closing the connection$/);
      // The server closes: stdout ends and the process exits.
      expect(await exit).toBe(0);
      expect(stderr()).toMatch(/turnloop: closing the connection: unreadable frame: /);
      expect(peer.garbage).toBe("");
      expect(child.exitCode).toBe(0);
    },
  );

  test("a body that is not JSON gets a parse error with id null, and the connection goes on", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    peer.sendRaw("Content-Length: 9\r\n\r\n{not json");
    const answer = await peer.waitFor((received) => received.id === null);
    expect(answer.error).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/^Parse error/),
    });
    expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
      message: "pong: after",
    });
    // Header fields may come in any order and case, with a Content-Type.
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping", params: {} });
    peer.sendRaw(
      `content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect((await peer.waitFor((received) => received.id === 7)).result).toBeDefined();
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("a batch (a JSON array) and JSON that is no message get -32600 with id null and one stderr line each; the connection goes on", async () => {
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    peer.sendFrame([{ jsonrpc: "2.0", id: 5, method: "ping" }]);
    peer.sendFrame(42);
    peer.sendFrame({ jsonrpc: "2.0", id: 6 });
    expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
      message: "pong: after",
    });
    const batch =
      "a batch (a JSON array of messages) is not supported: send each message in its own frame";
    const noMessage = "a message with neither a method nor a result or error";
    expect(peer.messages.filter((message) => message.id === null)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid request: ${batch}` } },
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "Invalid request: a JSON number is not a JSON-RPC message",
        },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: `Invalid request: ${noMessage}` },
      },
    ]);
    expect(peer.messages.some((message) => message.id === 5)).toBe(false);
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(stderr()).toBe(
      [batch, "a JSON number is not a JSON-RPC message", noMessage]
        .map(
          (problem) => `turnloop: an invalid message answered as an invalid request: ${problem}\n`,
        )
        .join(""),
    );
  });

  test("a request whose id is no string or safe whole number, or whose method is no string, gets -32600 saying so", async () => {
    // Trial 33, findings 4 and 5: a large id came back rounded, and `method: 42` was answered as
    // "neither a method nor a result or error" with id null.
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    for (const id of ["123456789012345678901234567890", "9007199254740992", "1.5"]) {
      const body = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{}}`;
      peer.sendRaw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
    peer.sendFrame({ jsonrpc: "2.0", id: 12, method: 42 });
    expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
      message: "pong: after",
    });
    const range = "a string or a whole number from -9007199254740991 to 9007199254740991";
    const problems = [
      `a request's id must be ${range}, not 1.2345678901234568e+29`,
      `a request's id must be ${range}, not 9007199254740992`,
      `a request's id must be ${range}, not 1.5`,
      "a method must be a string, not 42",
    ];
    expect(peer.messages.filter((message) => "error" in message)).toEqual(
      problems.map((problem, index) => ({
        jsonrpc: "2.0",
        id: index === 3 ? 12 : null,
        error: { code: -32600, message: `Invalid request: ${problem}` },
      })),
    );
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(stderr()).toBe(
      problems
        .map(
          (problem) => `turnloop: an invalid message answered as an invalid request: ${problem}\n`,
        )
        .join(""),
    );
  });

  test("TURNLOOP_MAX_MESSAGE_BYTES that is not a byte count is refused at start", async () => {
    const { stderr, exit } = spawnServer(
      ["--stdio"],
      { ...fixture.env, TURNLOOP_MAX_MESSAGE_BYTES: "-1" },
      fixture.cwd,
    );
    expect(await exit).toBe(64);
    expect(stderr()).toBe(
      'turnloop: TURNLOOP_MAX_MESSAGE_BYTES must be a whole number ≥ 1 (bytes in one protocol message), not "-1"\n',
    );
  });
});

describe("turnloop --headless --stdio: a bad frame after good requests in one burst", () => {
  const burst = (tail: string) =>
    [
      { jsonrpc: "2.0", id: 101, method: "ping", params: { message: "one" } },
      { jsonrpc: "2.0", id: 102, method: "session.list", params: {} },
    ]
      .map((body) => {
        const text = JSON.stringify(body);
        return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
      })
      .join("") + tail;

  test("an empty body (Content-Length: 0) is an invalid request; everything is answered and the connection goes on", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    peer.sendRaw(burst("Content-Length: 0\r\n\r\n"));
    const answers = await Promise.all(
      [101, 102, null].map((id) => peer.waitFor((received) => received.id === id)),
    );
    expect(answers.map((answer) => [answer.id, answer.error ?? "result" in answer])).toEqual([
      [101, true],
      [102, true],
      [null, { code: -32600, message: "Invalid request: an empty message (Content-Length: 0)" }],
    ]);
    expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
      message: "pong: after",
    });
    expect(peer.garbage).toBe("");
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("a fault: the requests read before it are answered, then the error, then the close", async () => {
    const { peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    peer.sendRaw(burst("Content-Length: abc\r\n\r\n"));
    expect(await exit).toBe(0);
    expect(peer.messages.map((message) => [message.id, message.error?.code ?? "result"])).toEqual([
      [101, "result"],
      [102, "result"],
      [null, -32700],
    ]);
    expect(peer.garbage).toBe("");
  });
});
