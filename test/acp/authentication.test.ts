import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Issue 17: authMethods name the key's variable, authenticate answers, and a prompt without a key
// is auth-required (-32000) with a readable message, over the built CLI as a child process.

const fixture = ChildFixture.forEachTest();

const ANTHROPIC = { TURNLOOP_MODEL: "anthropic:claude-sonnet-4-5" };
const ENV_METHOD: acp.AuthMethod = {
  id: "env:ANTHROPIC_API_KEY",
  name: "API key in ANTHROPIC_API_KEY",
  description:
    "Set ANTHROPIC_API_KEY (or TURNLOOP_API_KEY) in the environment the editor starts turnloop acp with, then restart the agent. anthropic:claude-sonnet-4-5 reads its key from there.",
  _meta: { "turnloop/environmentVariable": "ANTHROPIC_API_KEY" },
};

describe("ACP authentication", () => {
  test("without a key: the method is advertised, authenticate and prompts answer -32000", async () => {
    const agent = fixture.startAgent(ANTHROPIC);
    const answer = await agent.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(answer.authMethods).toEqual([ENV_METHOD]);
    const missing = {
      code: -32000,
      message:
        "Authentication required: anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY (or TURNLOOP_API_KEY). Set it where the editor starts turnloop acp, then restart the agent.",
      data: {
        modelId: "anthropic:claude-sonnet-4-5",
        environmentVariable: "ANTHROPIC_API_KEY",
        authMethodId: "env:ANTHROPIC_API_KEY",
      },
    };
    await expect(
      agent.client.request(acp.methods.agent.authenticate, { methodId: ENV_METHOD.id }),
    ).rejects.toMatchObject(missing);
    await expect(
      agent.client.request(acp.methods.agent.authenticate, { methodId: "oauth" }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("authenticate: methodId: expected an advertised method"),
    });

    // The session opens, so the editor can show it; its prompt asks for the key.
    const sessionId = await agent.newSession();
    await expect(agent.prompt(sessionId, "hello")).rejects.toMatchObject(missing);
    expect(fixture.server.requests).toEqual([]);
    // Slash commands that need no model still run.
    expect(await agent.prompt(sessionId, "/model")).toEqual({ stopReason: "end_turn" });
    expect(await agent.end()).toBe(0);
  });

  test("with the key set: authenticate succeeds and the prompt reaches the model", async () => {
    fixture.server.enqueue({ text: "Hi." });
    const agent = fixture.startAgent({ ...ANTHROPIC, ANTHROPIC_API_KEY: "sk-ant-test" });
    await agent.initialize();
    expect(
      await agent.client.request(acp.methods.agent.authenticate, { methodId: ENV_METHOD.id }),
    ).toEqual({});
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(fixture.server.requests.map((request) => request.wire)).toEqual(["anthropic"]);
  });

  test("a model that needs no key advertises no methods", async () => {
    const agent = fixture.startAgent();
    const answer = await agent.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
    });
    expect(answer.authMethods).toEqual([]);
  });
});

// README, "When stdin ends": a key is the model's, not the run config's, so a placeholder left in
// fails each session/new with the message -p prints (which exits 64), and the exit stays 0.
test("a placeholder key: session/new fails -32603 with -p's message, no request, exit 0 at stdin's close", async () => {
  const failures: unknown[] = [];
  for (const [key, problem] of [
    ["<your Anthropic key>", 'looks like a placeholder ("<your Anthropic key>")'],
    [
      "sk-ant-…",
      "contains characters that cannot be sent in an HTTP header (a placeholder such as sk-… copied from an example?)",
    ],
  ] as const) {
    const agent = fixture.startAgent({ ...ANTHROPIC, ANTHROPIC_API_KEY: key });
    await agent.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    failures.push(
      await agent.client
        .request(acp.methods.agent.session.new, { cwd: fixture.cwd, mcpServers: [] })
        .then(
          () => "answered",
          (error: { code?: number; message?: string }) => ({
            code: error.code,
            message: error.message,
          }),
        ),
      await agent.end(),
    );
    expect(failures.at(-2)).toEqual({
      code: -32603,
      message: `the API key in ANTHROPIC_API_KEY ${problem}; set your real key.`,
    });
  }
  expect(failures.filter((failure) => typeof failure === "number")).toEqual([0, 0]);
  expect(fixture.server.requests).toEqual([]);
});
