import { describe, expect, test } from "vitest";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../src/session/message-size.js";
import { runCli } from "../support/cli.js";
import { ChildFixture } from "./child-process.js";
import { RawAcpAgent } from "./raw-lines.js";
import { AcpHarness } from "./support.js";

// Issue 11: the longest ACP line is documented and configurable, a 64 MB prompt fits the
// default, and an oversized line without a readable id is answered with id null.

/** Writes `text` in 1 MiB pieces, as a pipe delivers it. */
function sendInPieces(target: AcpHarness, text: string): void {
  for (let start = 0; start < text.length; start += 1024 * 1024) {
    target.sendRaw(text.slice(start, start + 1024 * 1024));
  }
  target.sendRaw("\n");
}

describe("ACP message size", () => {
  test("the default limit takes a 64 MB prompt: the request is read and answered", async () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBeGreaterThan(64 * 1024 * 1024);
    const harness = await AcpHarness.start();
    const log = '2026-12-01 12:00:00 INFO "quoted" line\n'.repeat(1_700_000);
    expect(log.length).toBeGreaterThan(64 * 1000 * 1000);
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: "huge-1",
      method: "session/prompt",
      params: { sessionId: "no-such-session", prompt: [{ type: "text", text: log }] },
    });
    sendInPieces(harness, line);
    const answer = await harness.waitForWire(
      (entry) => entry.direction === "to-client" && entry.message.id === "huge-1",
      60_000,
    );
    // Read, parsed and refused for what it asks (an unknown session), not for its size.
    expect(JSON.stringify(answer.message.error)).not.toMatch(/too large/i);
    expect(JSON.stringify(answer.message.error)).toContain("no-such-session");
  }, 120_000);

  test("an oversized line without an id is answered with id null, and the agent goes on", async () => {
    const harness = await AcpHarness.start({ maxMessageBytes: 64 * 1024 });
    const padding = "z".repeat(200 * 1024);
    // A notification (no id at all), then a request whose id comes after its huge params.
    sendInPieces(
      harness,
      JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { padding } }),
    );
    sendInPieces(
      harness,
      JSON.stringify({ jsonrpc: "2.0", method: "session/prompt", params: { padding }, id: 9 }),
    );
    const nullAnswers = () =>
      harness.wire.filter((entry) => entry.direction === "to-client" && entry.message.id === null);
    await expect.poll(() => nullAnswers().length).toBeGreaterThanOrEqual(2);
    const answers = nullAnswers();
    expect(answers.map((entry) => entry.message.error)).toEqual([
      {
        code: -32600,
        message: "Invalid request",
        data: expect.stringMatching(
          /^turnloop: dropped a \d+-byte message \(the limit is 65536 bytes, TURNLOOP_MAX_MESSAGE_BYTES\)$/,
        ),
      },
      expect.objectContaining({ code: -32600, data: expect.stringContaining("dropped a") }),
    ]);
    expect(harness.stderr.join("\n")).toContain("answered with id null");
    harness.server.enqueue({ text: "still here" });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
  });

  // Reported as a bad config file is (test/cli/numeric-variables.test.ts has the session requests).
  test("TURNLOOP_MAX_MESSAGE_BYTES that is not a byte count: reported, exit 64 at stdin's close", async () => {
    const result = await runCli(["acp"], {
      cwd: process.cwd(),
      env: { ...process.env, TURNLOOP_MAX_MESSAGE_BYTES: "64MB" },
    });
    expect(result.code).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      'TURNLOOP_MAX_MESSAGE_BYTES must be a whole number ≥ 1 (bytes in one protocol message), not "64MB"',
    );
  });
});

describe("turnloop acp: a request line over the limit, first or later", () => {
  const fixture = ChildFixture.forEachTest();
  const LIMIT = 300;

  /** An `initialize` request of `bytes` bytes (its padding in `_meta`), as one line. */
  function oversized(bytes: number): string {
    const bare = {
      jsonrpc: "2.0",
      id: "big",
      method: "initialize",
      params: { protocolVersion: 1 },
    };
    const padding =
      bytes - JSON.stringify(bare).length - JSON.stringify({ _meta: { pad: "" } }).length + 1;
    const line = JSON.stringify({
      ...bare,
      params: { protocolVersion: 1, _meta: { pad: "p".repeat(padding) } },
    });
    expect(line.length).toBe(bytes);
    return line;
  }

  // 1 000 bytes: within the first read taken before the SDK loads (src/acp/first-line.ts);
  // 100 000: longer than that read (64 KiB).
  test.each([1_000, 100_000])(
    "%i bytes: the same too-large answer for its id, and the agent goes on",
    async (bytes) => {
      const line = `${oversized(bytes)}\n`;
      const answered = {
        jsonrpc: "2.0",
        id: "big",
        error: {
          code: -32600,
          message: `Message too large: ${bytes} bytes; the limit is ${LIMIT} bytes per line.`,
        },
      };
      const stderr = `turnloop: dropped a ${bytes}-byte message (the limit is ${LIMIT} bytes, TURNLOOP_MAX_MESSAGE_BYTES); request "big" gets an error\n`;
      const env = fixture.environment({ TURNLOOP_MAX_MESSAGE_BYTES: String(LIMIT) });

      const first = new RawAcpAgent(env, fixture.cwd);
      first.write(line);
      expect(await first.answer("big")).toEqual(answered);
      // Nothing of the line reached the connection: it still takes its `initialize`.
      expect((await first.request(1, "initialize", { protocolVersion: 1 })).result).toMatchObject({
        protocolVersion: 1,
      });
      expect(await first.end()).toBe(0);
      expect(first.answers().map((answer) => answer.id)).toEqual(["big", 1]);
      expect(first.stderr).toBe(stderr);

      const later = new RawAcpAgent(env, fixture.cwd);
      await later.request(1, "initialize", { protocolVersion: 1 });
      later.write(line);
      expect(await later.answer("big")).toEqual(answered);
      expect(await later.end()).toBe(0);
      expect(later.answers().map((answer) => answer.id)).toEqual([1, "big"]);
      expect(later.stderr).toBe(stderr);
    },
  );
});
