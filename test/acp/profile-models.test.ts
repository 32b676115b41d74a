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

test("session/resume and session/load of a session whose profile was removed: opened (only their session.resume recorded); each prompt refused naming the profile, nothing sent", async () => {
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
  const log = join(fixture.home, "session-state", sessionId, "events.jsonl");
  const before = await readFile(log, "utf8");

  // `home` removed; the configured model (lab's) still runs, and is not put in its place.
  await writeFile(config, JSON.stringify({ model: "lab:fake-model", providers: { lab } }));
  const agent = fixture.startAgent(env);
  await agent.initialize();
  const words = `the session's model home:kept names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (--model <provider>:<model> in the args of turnloop's entry in the editor's agent server settings).`;
  const refused = (error: { code?: number; message?: string }) => ({
    code: error.code,
    message: error.message,
  });
  // Neither needs the model to open the session (session 42: a resume too); a prompt does.
  await agent.client.request(acp.methods.agent.session.resume, {
    sessionId,
    cwd: fixture.cwd,
    mcpServers: [],
  });
  expect(agent.updates(sessionId).map((update) => update.sessionUpdate)).not.toContain(
    "agent_message_chunk",
  );
  const afterResume = await agent.prompt(sessionId, "two").then(() => "answered", refused);
  expect(afterResume).toEqual({ code: -32603, message: words });
  await agent.loadSession(sessionId);
  expect(
    agent.updates(sessionId).filter((update) => update.sessionUpdate === "agent_message_chunk"),
  ).toEqual([expect.objectContaining({ content: { type: "text", text: "One." } })]);
  const afterLoad = await agent.prompt(sessionId, "three").then(() => "answered", refused);
  expect(afterLoad).toEqual({ code: -32603, message: words });
  expect(fixture.server.requests).toHaveLength(1);
  expect(await agent.end()).toBe(0);
  // Opening it added only its `session.resume` records: no prompt, no model change.
  const added = (await readFile(log, "utf8")).slice(before.length).trim().split("\n");
  expect(added.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual([
    "session.resume",
    "session.resume",
  ]);
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
