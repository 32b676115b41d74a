import { expect, test } from "vitest";
import { fixtureForEachTest } from "./support.js";

// Trial 31, LOW 10: an app that named no model, on a server with none configured, was told to
// "Set --model or TURNLOOP_MODEL", a flag it cannot pass; and one that named an
// openai-compatible model on a server without an endpoint, to "set --base-url or
// TURNLOOP_BASE_URL". Each is told what it can set: the session's options, or a variable in
// the server's environment (llm/models.ts `ModelSettingNames`, server-model.ts's).

const fixture = fixtureForEachTest();

test("createSession without a model on a server without one names the session's model", async () => {
  Object.assign(fixture.env, { TURNLOOP_MODEL: "" });
  const client = await fixture.startedClient();
  await expect(client.createSession({})).rejects.toMatchObject({
    message:
      'session.create: no model configured. Set the session\'s model (createSession({ model: "<provider>:<model>" })) ' +
      "or TURNLOOP_MODEL in the server's environment to <provider>:<model>, e.g. " +
      "anthropic:claude-sonnet-4-5 (with ANTHROPIC_API_KEY in the server's environment), " +
      "openai:gpt-5 (with OPENAI_API_KEY), ollama:qwen3, or openai-compatible:<model> with the " +
      'session\'s provider (createSession({ model, provider: { type: "openai", baseUrl } })) ' +
      "or TURNLOOP_BASE_URL in the server's environment.",
  });
  // The refusal loses nothing: the same client creates a session that names its model.
  fixture.model.enqueue({ text: "Hello." });
  const session = await client.createSession({ model: "openai-compatible:fake-model" });
  expect(fixture.model.requests).toHaveLength(0);
  expect(session.sessionId).toMatch(/\S/);
});

test("an openai-compatible model on a server without an endpoint names the session's provider", async () => {
  Object.assign(fixture.env, { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" });
  const client = await fixture.startedClient();
  await expect(
    client.createSession({ model: "openai-compatible:fake-model" }),
  ).rejects.toMatchObject({
    message:
      "session.create: openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set the " +
      'session\'s provider (createSession({ model, provider: { type: "openai", baseUrl } })) ' +
      "or TURNLOOP_BASE_URL in the server's environment.",
  });
  // The setting it names works, on the same client: the session's provider's endpoint answers.
  fixture.model.enqueue({ text: "Hello." });
  const session = await client.createSession({
    model: "openai-compatible:fake-model",
    provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
  });
  const reply = await session.sendAndWait({ prompt: "hi" });
  expect(reply?.data.content).toBe("Hello.");
  expect(fixture.model.requests).toHaveLength(1);
});
