import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test as plainTest } from "vitest";
import { ChildFixture } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";
import { usageErrorOutcomes } from "../support/usage-errors.js";

// A daily driver's run: `TURNLOOP_CONTEXT_WINDOW=abc` (or 0, 12.5, -1) was ignored silently and
// the catalogue's window used. Every numeric variable turnloop reads is now checked from one table
// beside the flags' (src/cli/numeric-settings.ts, NUMERIC_VARIABLES), with the rules of its flag
// where it has one: a bad value exits 64 naming the variable, its range and the value, before any
// request; `turnloop acp` answers `initialize` and fails each session request with it, as it does
// for a bad config file. Through the built CLI as child processes.

const contextWindow = (value: string) =>
  `TURNLOOP_CONTEXT_WINDOW must be a whole number ≥ 1000 (tokens, as --context-window), not "${value}"`;

const cases: Array<{ args: string[]; env: Record<string, string>; stderr: string }> = [
  ...["abc", "0", "12.5", "-1", "999", " 4000", "0x1000"].map((value) => ({
    args: ["-p", "hi"],
    env: { TURNLOOP_CONTEXT_WINDOW: value },
    stderr: contextWindow(value),
  })),
  // The interactive session, config and the server read it too.
  { args: [], env: { TURNLOOP_CONTEXT_WINDOW: "abc" }, stderr: contextWindow("abc") },
  { args: ["config"], env: { TURNLOOP_CONTEXT_WINDOW: "0" }, stderr: contextWindow("0") },
  {
    args: ["serve"],
    env: { TURNLOOP_MAX_MESSAGE_BYTES: "64MB" },
    stderr:
      'TURNLOOP_MAX_MESSAGE_BYTES must be a whole number ≥ 1 (bytes in one protocol message), not "64MB"',
  },
  {
    args: ["-p", "hi"],
    env: { TURNLOOP_MAX_RETRIES: "-1" },
    stderr:
      'TURNLOOP_MAX_RETRIES must be a whole number ≥ 0 (retries of a failed model request), not "-1"',
  },
  {
    args: ["-p", "hi"],
    env: { TURNLOOP_RETRY_BASE_DELAY_MS: "1.5" },
    stderr:
      'TURNLOOP_RETRY_BASE_DELAY_MS must be a whole number ≥ 0 (milliseconds before the first retry), not "1.5"',
  },
  {
    args: ["-p", "hi"],
    env: { TURNLOOP_STREAM_IDLE_TIMEOUT_MS: "0" },
    stderr:
      'TURNLOOP_STREAM_IDLE_TIMEOUT_MS must be a whole number ≥ 1 (milliseconds a model\'s stream may stay silent), not "0"',
  },
  {
    args: ["serve"],
    env: { TURNLOOP_HOOK_TIMEOUT_MS: "0" },
    stderr:
      'TURNLOOP_HOOK_TIMEOUT_MS must be a whole number ≥ 1 (milliseconds the server waits for an app\'s hook), not "0"',
  },
  {
    args: ["mcp", "list"],
    env: { TURNLOOP_MCP_STARTUP_WAIT_MS: "5s" },
    stderr:
      'TURNLOOP_MCP_STARTUP_WAIT_MS must be a whole number ≥ 0 (milliseconds to wait for MCP servers to start), not "5s"',
  },
];

describe("numeric environment variables", () => {
  test("a bad value exits 64 naming the variable, its range and the value; nothing is sent", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes({ cli, environment, repository }, cases);
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("a valid value, an empty one, or one the command does not read: the command runs", async ({
    cli,
    model,
  }) => {
    model.setResponder(() => ({ text: "ok" }));
    // `sessions` makes no model request; it runs first, so that it lists none of -p's sessions.
    const listing = await cli(["sessions", "--json"], { env: { TURNLOOP_CONTEXT_WINDOW: "abc" } });
    const runs: Array<{ args: string[]; env: Record<string, string> }> = [
      { args: ["-p", "hi", "--quiet"], env: { TURNLOOP_CONTEXT_WINDOW: "4000" } },
      { args: ["-p", "hi", "--quiet"], env: { TURNLOOP_CONTEXT_WINDOW: "" } },
      // -p frames no protocol messages.
      { args: ["-p", "hi", "--quiet"], env: { TURNLOOP_MAX_MESSAGE_BYTES: "64MB" } },
    ];
    const results = await Promise.all(
      runs.map(async ({ args, env }) => {
        const { code, stdout, stderr } = await cli(args, { env });
        return { args, code, stdout, stderr };
      }),
    );
    expect({ code: listing.code, stdout: listing.stdout, stderr: listing.stderr }).toEqual({
      code: 0,
      stdout: "[]\n",
      stderr: "",
    });
    expect(results).toEqual(
      runs.map(({ args }) => ({ args, code: 0, stdout: "ok\n", stderr: "" })),
    );
  });
});

describe("numeric environment variables in turnloop acp", () => {
  const fixture = ChildFixture.forEachTest();

  plainTest(
    "initialize is answered, session requests fail naming the variable, exit 64 at stdin's close",
    async () => {
      const agent = fixture.startAgent({ TURNLOOP_CONTEXT_WINDOW: "12.5" });
      expect(await agent.sessionStartRefusal()).toEqual({
        protocolVersion: acp.PROTOCOL_VERSION,
        newSession: {
          code: -32603,
          message: `turnloop cannot start sessions: ${contextWindow("12.5")}`,
        },
      });
      expect(fixture.server.requests).toEqual([]);
      expect(await agent.end()).toBe(64);
      expect(agent.stderr).toBe(`turnloop: ${contextWindow("12.5")}\n`);
    },
  );
});
