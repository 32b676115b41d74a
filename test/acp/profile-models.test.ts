import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { ChildFixture } from "./child-process.js";

// ACP model selection (`session/set_model`, the `model` config option) of any model of a config
// profile, `<profile>:<model>` (README, "Config files"): it runs on the profile's endpoint with
// its `apiKeyEnv` key and keeps its id; another profile's model or a provider's never gets that
// key. Before, only the profile's configured `model` resolved: `lab:other` was an unknown model.

const fixture = ChildFixture.forEachTest();

const sent = (server: FakeModelServer) =>
  server.requests.map(({ headers, body }) => [
    headers.authorization,
    (body as { model?: string }).model,
  ]);

test("set_model lab:other and the model option home:x: each prompt on its profile's endpoint with its key", async () => {
  const home = await startFakeModelServer();
  try {
    await writeFile(
      join(fixture.home, "config.json"),
      JSON.stringify({
        model: "lab:fake-model",
        providers: {
          lab: {
            type: "openai-compatible",
            baseUrl: `${fixture.server.url}/v1`,
            apiKeyEnv: "LAB_KEY",
          },
          home: { type: "openai-compatible", baseUrl: `${home.url}/v1`, apiKeyEnv: "HOME_KEY" },
        },
      }),
    );
    const agent = fixture.startAgent({
      TURNLOOP_MODEL: "",
      TURNLOOP_BASE_URL: "",
      LAB_KEY: "lab-secret-111111",
      HOME_KEY: "home-secret-222222",
      OPENAI_API_KEY: "openai-secret-333333",
    });
    await agent.initialize();
    const created = await agent.client.request(acp.methods.agent.session.new, {
      cwd: fixture.cwd,
      mcpServers: [],
    });
    const { sessionId } = created;
    const model = created.configOptions?.find((option) => option.id === "model");
    expect(model).toMatchObject({ currentValue: "lab:fake-model" });

    fixture.server.enqueue({ text: "From lab." });
    expect(
      await agent.client.request("session/set_model", { sessionId, modelId: "lab:other" }),
    ).toEqual({});
    expect(await agent.prompt(sessionId, "one")).toEqual({ stopReason: "end_turn" });

    home.enqueue({ text: "From home." });
    const answer = await agent.client.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "home:x",
    });
    expect(answer.configOptions.find((option) => option.id === "model")).toMatchObject({
      currentValue: "home:x",
    });
    expect(await agent.prompt(sessionId, "two")).toEqual({ stopReason: "end_turn" });

    expect(sent(fixture.server)).toEqual([["Bearer lab-secret-111111", "other"]]);
    expect(sent(home)).toEqual([["Bearer home-secret-222222", "x"]]);
    const changes = (await fixture.persisted(sessionId)).flatMap((event) =>
      event.type === "session.model_change" ? [event.data] : [],
    );
    expect(changes).toEqual([
      { previousModel: "lab:fake-model", newModel: "lab:other" },
      { previousModel: "lab:other", newModel: "home:x" },
    ]);
    expect(await agent.end()).toBe(0);
  } finally {
    await home.close();
  }
});

test("session/resume of a session whose profile was removed: -32602 naming the profile, nothing written; session/load replays it, its prompt refused", async () => {
  const config = join(fixture.home, "config.json");
  const lab = { type: "openai-compatible", baseUrl: `${fixture.server.url}/v1` };
  await writeFile(
    config,
    JSON.stringify({ model: "lab:fake-model", providers: { lab, home: lab } }),
  );
  const env = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };
  const first = fixture.startAgent(env);
  await first.initialize();
  const { sessionId } = await first.client.request(acp.methods.agent.session.new, {
    cwd: fixture.cwd,
    mcpServers: [],
  });
  await first.client.request("session/set_model", { sessionId, modelId: "home:kept" });
  fixture.server.enqueue({ text: "One." });
  expect(await first.prompt(sessionId, "one")).toEqual({ stopReason: "end_turn" });
  expect(await first.end()).toBe(0);
  const before = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );

  // `home` removed; the configured model (lab's) still runs, and is not put in its place.
  await writeFile(config, JSON.stringify({ model: "lab:fake-model", providers: { lab } }));
  const agent = fixture.startAgent(env);
  await agent.initialize();
  const words = `the session's model home:kept names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (--model <provider>:<model> in the args of turnloop's entry in the editor's agent server settings).`;
  // session/load needs no model to replay the log (session 41): only a resume is refused.
  for (const method of [acp.methods.agent.session.resume]) {
    const answer = await agent.client
      .request(method, { sessionId, cwd: fixture.cwd, mcpServers: [] })
      .then(
        () => "answered",
        (error: { code?: number; message?: string; data?: unknown }) => ({
          code: error.code,
          message: error.message,
          data: error.data,
        }),
      );
    expect(answer).toEqual({
      code: -32602,
      message: `${method}: sessionId: ${words}`,
      data: {
        method,
        sessionId,
        model: "home:kept",
        problems: [{ path: ["sessionId"], message: words }],
      },
    });
  }
  expect(agent.updates(sessionId)).toEqual([]);
  expect(
    await readFile(join(fixture.home, "session-state", sessionId, "events.jsonl"), "utf8"),
  ).toBe(before);
  // A load replays the log without the model; the prompt is refused with the profile's words.
  await agent.loadSession(sessionId);
  expect(
    agent.updates(sessionId).filter((update) => update.sessionUpdate === "agent_message_chunk"),
  ).toEqual([expect.objectContaining({ content: { type: "text", text: "One." } })]);
  const prompted = await agent.prompt(sessionId, "two").then(
    () => "answered",
    (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
  );
  expect(prompted).toEqual({ code: -32603, message: expect.stringContaining('"home"') });
  expect(fixture.server.requests).toHaveLength(1);
  expect(await agent.end()).toBe(0);
});

test("TURNLOOP_BASE_URL set: set_model lab:other goes to lab's own endpoint with its key; a model of no profile to TURNLOOP_BASE_URL with its provider's", async () => {
  const lab = await startFakeModelServer();
  try {
    await writeFile(
      join(fixture.home, "config.json"),
      JSON.stringify({
        providers: {
          lab: { type: "openai-compatible", baseUrl: `${lab.url}/v1`, apiKeyEnv: "LAB_KEY" },
        },
      }),
    );
    // The fixture's TURNLOOP_BASE_URL is its own fake model, TURNLOOP_MODEL a model of no profile.
    const agent = fixture.startAgent({
      LAB_KEY: "lab-secret-111111",
      OPENAI_API_KEY: "openai-secret-333333",
    });
    await agent.initialize();
    const sessionId = await agent.newSession();
    fixture.server.enqueue({ text: "From the other endpoint." }, { text: "Again." });
    lab.enqueue({ text: "From lab." });
    expect(await agent.prompt(sessionId, "one")).toEqual({ stopReason: "end_turn" });
    await agent.client.request("session/set_model", { sessionId, modelId: "lab:other" });
    expect(await agent.prompt(sessionId, "two")).toEqual({ stopReason: "end_turn" });
    await agent.client.request("session/set_model", {
      sessionId,
      modelId: "openai-compatible:fake-model",
    });
    expect(await agent.prompt(sessionId, "three")).toEqual({ stopReason: "end_turn" });

    expect(sent(lab)).toEqual([["Bearer lab-secret-111111", "other"]]);
    expect(sent(fixture.server)).toEqual([
      ["Bearer openai-secret-333333", "fake-model"],
      ["Bearer openai-secret-333333", "fake-model"],
    ]);
    expect(await agent.end()).toBe(0);
  } finally {
    await lab.close();
  }
});
