import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { initializeRequestId } from "../../src/acp/first-line.js";
import { PROTOCOL_VERSION } from "../../src/acp/initialize.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../src/session/message-size.js";
import { CLI_PATH } from "../support/cli.js";
import { ChildFixture } from "./child-process.js";

// Issue 26, figure 7a: `turnloop acp` answers a valid `initialize` before the ACP SDK loads
// (src/acp/start.ts). Whatever it answers must be what the SDK's path answers, byte for byte. The
// SDK's path is the same agent given a blank line first: the first line is then not an
// `initialize`, so everything goes to the SDK (which skips blank lines), as before the change.

const fixture = ChildFixture.forEachTest();

/** Answered last by every run of the table, so a run knows when to close stdin. */
const SENTINEL = request("end", { protocolVersion: 1 });

interface Conversation {
  stdout: string[];
  stderr: string;
  code: number | null;
}

/**
 * `turnloop acp` given `input` in one write; stdin is closed once stdout holds `until` (by
 * default the answer to {@link SENTINEL}; at once when `null`). Session ids (random) read
 * `<uuid>`.
 */
async function converse(
  input: string,
  env: NodeJS.ProcessEnv,
  until: string | null,
): Promise<Conversation> {
  const child = spawn(process.execPath, [CLI_PATH, "acp"], { cwd: fixture.cwd, env });
  let stdout = "";
  let stderr = "";
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const answered = new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (until !== null && stdout.includes(until)) {
        resolve();
      }
    });
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.write(input);
  if (until !== null) {
    await Promise.race([answered, closed]);
  }
  child.stdin.end();
  const code = await closed;
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  const lines = stdout.replace(uuid, "<uuid>").split("\n");
  return { stdout: lines, stderr: stderr.replace(uuid, "<uuid>"), code };
}

function request(id: unknown, params: unknown, method = "initialize"): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
}

/** The run as it is, and the run with everything left to the SDK: the same answers. */
async function bothPaths(
  input: string,
  env: NodeJS.ProcessEnv,
  until: string | null = '"id":"end"',
): Promise<Conversation> {
  const early = await converse(input, env, until);
  const sdk = await converse(`\n${input}`, env, until);
  expect(early).toEqual(sdk);
  return early;
}

const VALID = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } };

/**
 * First lines the early path answers itself (first-line.ts `initializeRequestId` takes them):
 * each is compared with the SDK path's answer end to end, both children, byte for byte.
 */
const ANSWERED_EARLY: Array<[string, string]> = [
  ["valid, with clientInfo", request(1, { ...VALID, clientInfo: { name: "t", version: "1" } })],
  ["protocolVersion 0", request(1, { protocolVersion: 0 })],
  ["protocolVersion 1 only", request(1, { protocolVersion: 1 })],
  ["protocolVersion 65535", request(1, { protocolVersion: 65535 })],
  ["id a string", request("init-1", VALID)],
  [
    "extra and wrongly typed fields",
    request(1, {
      protocolVersion: 1,
      clientCapabilities: { fs: "yes", terminal: 3, auth: [] },
      clientInfo: 5,
      _meta: [],
      extra: { a: 1 },
    }),
  ],
  ["capabilities not an object", request(1, { protocolVersion: 1, clientCapabilities: "all" })],
  ["CRLF and a byte-order mark", `\uFEFF${request(1, VALID).replace("\n", "\r\n")}`],
  ["two initializes", request(1, VALID) + request(2, { protocolVersion: 1 })],
  ["two initializes with one id", request(1, VALID) + request(1, VALID)],
];

/**
 * First lines the early path leaves to the SDK, end to end, both children, as above: bytes that
 * reach the SDK's reader in another shape than one request line (not JSON, another method, a line
 * past the early read), lines the SDK answers with success or not at all (an `id` of null, a
 * notification, a `result` beside the method: the SDK answers them, so an early answer would
 * have to be the same bytes), and one line of {@link DECLINED}'s kind.
 */
const HANDED_OVER: Array<[string, string]> = [
  ["protocolVersion 65536", request(1, { protocolVersion: 65536 })],
  ["garbage first", `not json\n${request(1, VALID)}`],
  ["session/list before initialize", request(1, {}, "session/list") + request(2, VALID)],
  [
    "a first line longer than the early read (64 KiB)",
    request(1, { ...VALID, _meta: { pad: "x".repeat(70_000) } }),
  ],
  ["id null", request(null, VALID)],
  [
    "id missing (a notification)",
    `${JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: VALID })}\n`,
  ],
  [
    "a result beside the method",
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: VALID, result: {} })}\n`,
  ],
];

/**
 * One line of JSON the SDK answers with an error (-32602 for the params, -32600 for the id or
 * `jsonrpc`; read from the SDK path's answers to each): the early path must leave it to the SDK,
 * which then reads the same line on both paths. Checked in-process on the real decision
 * (first-line.ts `initializeRequestId`), one line each; one of the kind ("protocolVersion
 * 65536", {@link HANDED_OVER}) runs end to end. An early answer to any of them would be a success
 * where the SDK answers an error: the check fails there as the comparison of two children did.
 */
const DECLINED: Array<[string, string]> = [
  ["protocolVersion -1", request(1, { protocolVersion: -1 })],
  ["protocolVersion 1.5", request(1, { protocolVersion: 1.5 })],
  ['protocolVersion "1"', request(1, { protocolVersion: "1" })],
  ["protocolVersion missing", request(1, { clientCapabilities: {} })],
  ["params missing", `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" })}\n`],
  ["params null", request(1, null)],
  ["params an array", request(1, [1])],
  ["id a negative fraction", request(-2.5, VALID)],
  ["id a whole number beyond 2^53", request(2 ** 53, VALID)],
  [
    "jsonrpc 1.0",
    `${JSON.stringify({ jsonrpc: "1.0", id: 1, method: "initialize", params: VALID })}\n`,
  ],
];

describe("initialize answered before the ACP SDK loads: the SDK's answers, byte for byte", () => {
  test.each([...ANSWERED_EARLY, ...HANDED_OVER])("%s", async (_name, input) => {
    const env = fixture.environment({ TURNLOOP_MODEL: "openai-chat:gpt-4.1" });
    const { stdout, code } = await bothPaths(input + SENTINEL, env);
    expect(code).toBe(0);
    // Each line is one whole message; the sentinel's answer is there.
    expect(stdout.at(-1)).toBe("");
    for (const line of stdout.slice(0, -1)) {
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(stdout.some((line) => line.startsWith('{"jsonrpc":"2.0","id":"end","result":'))).toBe(
      true,
    );
  });

  test.each(ANSWERED_EARLY)("%s: the early path takes it", (_name, input) => {
    const line = new TextEncoder().encode(input.slice(0, input.indexOf("\n")));
    expect(initializeRequestId(line, DEFAULT_MAX_MESSAGE_BYTES)).toBeDefined();
  });

  test.each([...DECLINED, ...HANDED_OVER.slice(0, 1)])("%s: left to the SDK", (_name, input) => {
    const line = new TextEncoder().encode(input.slice(0, input.indexOf("\n")));
    expect(initializeRequestId(line, DEFAULT_MAX_MESSAGE_BYTES)).toBeUndefined();
  });

  test("the answer itself: protocol 1, the key's auth method, nothing else on stdout", async () => {
    const env = fixture.environment({ TURNLOOP_MODEL: "openai-chat:gpt-4.1" });
    const { stdout, stderr } = await bothPaths(request(7, VALID) + SENTINEL, env);
    expect(PROTOCOL_VERSION).toBe(acp.PROTOCOL_VERSION);
    const [first, second, rest] = [stdout[0], stdout[1], stdout.slice(2)];
    expect(JSON.parse(first ?? "")).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: { protocolVersion: 1, authMethods: [{ id: "env:OPENAI_API_KEY" }] },
    });
    expect(JSON.parse(second ?? "")).toMatchObject({ id: "end", result: { protocolVersion: 1 } });
    expect(rest).toEqual([""]);
    expect(stderr).toBe("");
  });

  test("initialize and session/new in one write: both answered, as before", async () => {
    const input =
      request(1, VALID) + request(2, { cwd: fixture.cwd, mcpServers: [] }, "session/new");
    // Closing stdin ends the connection: wait for session/new's answer first.
    const { stdout } = await bothPaths(input, fixture.environment(), '"id":2,');
    const messages = stdout.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages.filter((message) => "id" in message).map((message) => message.id)).toEqual([
      1, 2,
    ]);
    expect(messages.find((message) => message.id === 2)).toMatchObject({
      result: { sessionId: "<uuid>" },
    });
  });

  test("a first line over TURNLOOP_MAX_MESSAGE_BYTES is the SDK path's error", async () => {
    const env = fixture.environment({ TURNLOOP_MAX_MESSAGE_BYTES: "200" });
    const input = request(1, { ...VALID, _meta: { pad: "x".repeat(300) } });
    const { stdout } = await bothPaths(input + SENTINEL, env);
    expect(JSON.parse(stdout[0] ?? "")).toMatchObject({ id: 1, error: { code: -32600 } });
  });

  test("stdin closing before a newline, or at once: as before", async () => {
    const env = fixture.environment();
    const unfinished = request(1, VALID).trimEnd();
    expect((await bothPaths(unfinished, env, null)).code).toBe(0);
    expect(await bothPaths("", env, null)).toEqual({ stdout: [""], stderr: "", code: 0 });
  });

  test("an invalid config file: initialize answered with no auth methods, exit 64", async () => {
    await writeFile(join(fixture.home, "config.json"), '{"maxTurns": "many"}\n');
    const env = fixture.environment({ TURNLOOP_MODEL: "openai-chat:gpt-4.1" });
    const { stdout, code } = await bothPaths(request(1, VALID) + SENTINEL, env);
    expect(JSON.parse(stdout[0] ?? "")).toMatchObject({ id: 1, result: { authMethods: [] } });
    expect(code).toBe(64);
  });
});
