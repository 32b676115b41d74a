import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A user trial: `turnloop acp` with an invalid config file exited 64 before answering
// `initialize`, and the editor showed only "agent crashed". It now answers `initialize`, fails
// each request about sessions with the config error (file and key), and exits once stdin closes.
// So do a model whose provider turnloop does not know and a base URL that is not http(s) (they
// exited 0 and failed each session/new).

const fixture = ChildFixture.forEachTest();

test("an invalid config file: initialize is answered, session/new fails naming the file and key, exit 64 at stdin's close", async () => {
  const configFile = join(fixture.home, "config.json");
  await writeFile(configFile, '{"maxTurns": "many"}\n');
  const agent = fixture.startAgent();
  const answer = await agent.client.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientInfo: { name: "invalid-config-test", version: "1.0.0" },
  });
  expect([answer.protocolVersion, answer.authMethods]).toEqual([acp.PROTOCOL_VERSION, []]);
  const failures = await Promise.all(
    [
      agent.client.request(acp.methods.agent.session.new, { cwd: fixture.cwd, mcpServers: [] }),
      agent.client.request(acp.methods.agent.session.list, {}),
    ].map((request) =>
      request.then(
        () => "answered",
        (error: { code?: number; message?: string }) => ({
          code: error.code,
          message: error.message,
        }),
      ),
    ),
  );
  const failure = {
    code: -32603,
    message: `turnloop cannot start sessions: ${configFile}: maxTurns: must be a number, not the string "many"`,
  };
  expect(failures).toEqual([failure, failure]);
  expect(fixture.server.requests).toEqual([]);
  expect(await agent.end()).toBe(64);
});

test.each([
  [
    { TURNLOOP_MODEL: "a:b" },
    'TURNLOOP_MODEL "a:b" is not <provider>:<model> with provider one of openai, openai-chat, anthropic, ollama, openai-compatible',
  ],
  [
    { TURNLOOP_BASE_URL: "notaurl" },
    'TURNLOOP_BASE_URL "notaurl" is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)',
  ],
  [
    { TURNLOOP_MODEL: "ollama:qwen3", TURNLOOP_BASE_URL: "", OLLAMA_HOST: "ftp://127.0.0.1:1" },
    'OLLAMA_HOST "ftp://127.0.0.1:1" is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)',
  ],
])(
  "a run-config error in the environment (%o): session/new fails naming it, exit 64 at stdin's close",
  async (env, problem) => {
    const agent = fixture.startAgent(env);
    expect(await agent.sessionStartRefusal()).toEqual({
      protocolVersion: acp.PROTOCOL_VERSION,
      newSession: { code: -32603, message: `turnloop cannot start sessions: ${problem}` },
    });
    expect(fixture.server.requests).toEqual([]);
    expect(await agent.end()).toBe(64);
  },
);

// A user trial: with no model endpoint configured, `turnloop acp` failed session/new with -32603,
// wrote nothing to stderr (where an editor's log shows an agent's problems) and exited 0. It now
// says the problem on stderr, as -p does, and exits 64 once stdin closes.
test.each([
  [
    { TURNLOOP_MODEL: "" },
    "no model configured. Set TURNLOOP_MODEL in the env of turnloop's entry in the editor's agent server settings (or --model in its args) to <provider>:<model>, e.g. anthropic:claude-sonnet-4-5 (with ANTHROPIC_API_KEY in that env), openai:gpt-5 (with OPENAI_API_KEY), ollama:qwen3, or openai-compatible:<model> with TURNLOOP_BASE_URL in the env of turnloop's entry in the editor's agent server settings (or --base-url in its args).",
  ],
  [
    { TURNLOOP_BASE_URL: "" },
    "openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set TURNLOOP_BASE_URL in the env of turnloop's entry in the editor's agent server settings (or --base-url in its args).",
  ],
])(
  "a model that cannot run here (%o): stderr says why, session/new fails with it, exit 64 at stdin's close",
  async (env, problem) => {
    const agent = fixture.startAgent(env);
    expect(await agent.sessionStartRefusal()).toEqual({
      protocolVersion: acp.PROTOCOL_VERSION,
      newSession: { code: -32603, message: problem },
    });
    expect(await agent.end()).toBe(64);
    expect(agent.stderr).toBe(`turnloop: ${problem}\n`);
    expect(agent.stdoutLines.map((line) => Object.keys(JSON.parse(line) as object))).toEqual([
      ["jsonrpc", "id", "result"],
      ["jsonrpc", "id", "error"],
    ]);
    expect(fixture.server.requests).toEqual([]);
  },
);
