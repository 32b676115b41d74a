import { expect, test } from "vitest";
import { fixtureForEachTest } from "./support.js";

// Trial 31, LOW 10: an app that named no model, on a server with none configured, was told to
// "Set --model or TURNLOOP_MODEL", a flag it cannot pass. It is told what it can set: the
// session's model, or TURNLOOP_MODEL in the server's environment.

const fixture = fixtureForEachTest();

test("createSession without a model on a server without one names the session's model", async () => {
  Object.assign(fixture.env, { TURNLOOP_MODEL: "" });
  const client = await fixture.startedClient();
  await expect(client.createSession({})).rejects.toThrow(
    'no model configured: set the session\'s model (createSession({ model: "<provider>:<model>" }), ' +
      "e.g. anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY in the server's environment, " +
      "openai:gpt-5 with OPENAI_API_KEY, or ollama:qwen3), or TURNLOOP_MODEL in the server's environment",
  );
  // The refusal loses nothing: the same client creates a session that names its model.
  fixture.model.enqueue({ text: "Hello." });
  const session = await client.createSession({ model: "openai-compatible:fake-model" });
  expect(fixture.model.requests).toHaveLength(0);
  expect(session.sessionId).toMatch(/\S/);
});
