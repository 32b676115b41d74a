import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { fixtureForEachTest } from "./support.js";

// Session 41 left it: the server's `session.resume` refused a session whose model cannot run
// here (`-32602`, nothing written), so an app could not reopen it to switch its model; ACP's
// `session/load` and `session/resume` open it and answer its prompt with the problem. The server
// now does the same: the resume answers, `session.send` is refused naming the problem (nothing
// stored, nothing sent), and `session.model.switchTo` then runs the next prompt.

const fixture = fixtureForEachTest();

test("resumeSession of a session whose model has no endpoint here: resumed; send refused naming the endpoint; after setModel the next prompt runs", async () => {
  const client = await fixture.startedClient();
  const session = await client.createSession({ model: "openai-compatible:fake-model" });
  fixture.model.enqueue({ text: "One." });
  await session.sendAndWait({ prompt: "one" });
  const { sessionId } = session;
  await client.stop();

  // No endpoint for openai-compatible:fake-model, no model configured in its place; a config
  // profile `lab` reaches the fake model.
  const lab = { type: "openai-compatible", baseUrl: `${fixture.model.url}/v1` };
  await writeFile(join(fixture.home, "config.json"), JSON.stringify({ providers: { lab } }));
  Object.assign(fixture.env, { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" });
  const again = await fixture.startedClient();
  const resumed = await again.resumeSession(sessionId);
  await expect(resumed.send({ prompt: "two" })).rejects.toThrow(
    "session.send: openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set the " +
      'session\'s provider (createSession({ model, provider: { type: "openai", baseUrl } })) ' +
      "or TURNLOOP_BASE_URL in the server's environment; or switch the session's model " +
      "(session.model.switchTo). Nothing was sent or stored.",
  );
  expect(fixture.model.requests).toHaveLength(1);

  await resumed.setModel("lab:fake-model");
  fixture.model.enqueue({ text: "Three." });
  const reply = await resumed.sendAndWait({ prompt: "three" });
  expect(reply?.data.content).toBe("Three.");
  expect(fixture.model.requests).toHaveLength(2);
  const history = JSON.stringify(fixture.model.requests[1]?.body);
  expect(history).toContain('"one"');
  expect(history).toContain("One.");
  expect(history).not.toContain('"two"');
  await again.stop();
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  expect(log).not.toContain('"two"');
  expect(log).toContain('"newModel":"lab:fake-model"');
});
