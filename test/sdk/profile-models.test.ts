import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { fixtureForEachTest } from "./support.js";

// The SDK's model choice (`createSession({model})`, `setModel`, `resumeSession`) of any model of
// a config profile, `<profile>:<model>` (README, "Config files"): on the profile's endpoint with
// its `apiKeyEnv` key, the id kept in the session. Before, only the profile's configured `model`
// resolved: `setModel("lab:other")` was refused as an unknown model.

const fixture = fixtureForEachTest();
let home: FakeModelServer;
beforeEach(async () => {
  home = await startFakeModelServer();
  await writeFile(
    join(fixture.home, "config.json"),
    JSON.stringify({
      model: "lab:fake-model",
      providers: {
        lab: {
          type: "openai-compatible",
          baseUrl: `${fixture.model.url}/v1`,
          apiKeyEnv: "LAB_KEY",
        },
        home: { type: "openai-compatible", baseUrl: `${home.url}/v1`, apiKeyEnv: "HOME_KEY" },
      },
    }),
  );
  Object.assign(fixture.env, {
    TURNLOOP_MODEL: "",
    TURNLOOP_BASE_URL: "",
    LAB_KEY: "lab-secret-111111",
    HOME_KEY: "home-secret-222222",
  });
});
afterEach(() => home.close());

const sent = (server: FakeModelServer) =>
  server.requests.map(({ headers, body }) => [
    headers.authorization,
    (body as { model?: string }).model,
  ]);

test("createSession home:x, setModel lab:other, and a resume: each on its profile's endpoint with its key", async () => {
  const client = await fixture.startedClient();
  const session = await client.createSession({ model: "home:x" });
  home.enqueue({ text: "From home." });
  await session.sendAndWait({ prompt: "one" });
  await session.setModel("lab:other");
  fixture.model.enqueue({ text: "From lab." }, { text: "Again from lab." });
  await session.sendAndWait({ prompt: "two" });
  const { sessionId } = session;
  await client.stop();

  const again = await fixture.startedClient();
  const resumed = await again.resumeSession(sessionId);
  await resumed.sendAndWait({ prompt: "three" });

  expect(sent(home)).toEqual([["Bearer home-secret-222222", "x"]]);
  expect(sent(fixture.model)).toEqual([
    ["Bearer lab-secret-111111", "other"],
    ["Bearer lab-secret-111111", "other"],
  ]);
  const listed = await again.listSessions();
  expect(listed.find((each) => each.sessionId === sessionId)).toMatchObject({
    model: "lab:other",
  });
});

// The session-28 trial (#6): a bare name runs on the provider of the model in use, by the rule
// every face shares (src/session/host-models.ts withProvider), not on the configured model's.
test("setModel with a bare name runs it on the session's profile, not the configured one's", async () => {
  const client = await fixture.startedClient();
  const session = await client.createSession({ model: "home:x" });
  await session.setModel("y");
  home.enqueue({ text: "From home." });
  await session.sendAndWait({ prompt: "one" });
  expect([sent(home), sent(fixture.model)]).toEqual([[["Bearer home-secret-222222", "y"]], []]);
  const listed = await client.listSessions();
  expect(listed.find((each) => each.sessionId === session.sessionId)).toMatchObject({
    model: "home:y",
  });
});

test("resumeSession of a session whose profile was removed from the config: resumed; its send refused naming the profile, nothing sent or stored", async () => {
  const client = await fixture.startedClient();
  const session = await client.createSession({ model: "home:x" });
  home.enqueue({ text: "From home." });
  await session.sendAndWait({ prompt: "one" });
  const { sessionId } = session;
  await client.stop();
  const log = join(fixture.home, "session-state", sessionId, "events.jsonl");
  const before = await readFile(log, "utf8");
  await writeFile(
    join(fixture.home, "config.json"),
    JSON.stringify({
      model: "lab:fake-model",
      providers: {
        lab: {
          type: "openai-compatible",
          baseUrl: `${fixture.model.url}/v1`,
          apiKeyEnv: "LAB_KEY",
        },
      },
    }),
  );
  const again = await fixture.startedClient();
  // Resumed without its model (session 42, as ACP's session/load and session/resume): the send
  // is what is refused.
  const resumed = await again.resumeSession(sessionId);
  await expect(resumed.send({ prompt: "two" })).rejects.toThrow(
    `session.send: the session's model home:x names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (resumeSession(sessionId, { model: "<provider>:<model>" })); or switch the session's model (session.model.switchTo). Nothing was sent or stored.`,
  );
  await again.stop();
  const added = (await readFile(log, "utf8")).slice(before.length);
  expect(added).not.toContain('"two"');
  expect(added).not.toContain("session.model_change");
  expect(fixture.model.requests).toEqual([]);
});

test("TURNLOOP_BASE_URL set: createSession and setModel of a profile's model use its own endpoint and key; a model of no profile goes there with its provider's", async () => {
  const elsewhere = await startFakeModelServer();
  try {
    Object.assign(fixture.env, {
      TURNLOOP_BASE_URL: `${elsewhere.url}/v1`,
      OPENAI_API_KEY: "openai-secret-333333",
    });
    const client = await fixture.startedClient();
    const session = await client.createSession({ model: "home:x" });
    home.enqueue({ text: "From home." });
    await session.sendAndWait({ prompt: "one" });
    await session.setModel("openai-compatible:plain");
    elsewhere.enqueue({ text: "From elsewhere." });
    await session.sendAndWait({ prompt: "two" });
    await session.setModel("lab:other");
    fixture.model.enqueue({ text: "From lab." });
    await session.sendAndWait({ prompt: "three" });
    await client.stop();

    expect(sent(home)).toEqual([["Bearer home-secret-222222", "x"]]);
    expect(sent(elsewhere)).toEqual([["Bearer openai-secret-333333", "plain"]]);
    expect(sent(fixture.model)).toEqual([["Bearer lab-secret-111111", "other"]]);
  } finally {
    await elsewhere.close();
  }
});
