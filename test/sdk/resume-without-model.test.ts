import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForEachTest, startCopilotClient } from "./support.js";

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

// Session 43: on such a session `session.model.setReasoningEffort` and `session.history.compact`
// answered `-32603 "<method> failed: <problem>"`, as for a fault of the server. They now answer
// as `session.send` does: `-32602` naming the problem and the way on (session.model.switchTo).
test("setReasoningEffort and history.compact of a resumed session whose model cannot run here: -32602 naming why and the switch", async () => {
  const client = await fixture.startedClient();
  const session = await client.createSession({ model: "openai-compatible:fake-model" });
  fixture.model.enqueue({ text: "One." });
  await session.sendAndWait({ prompt: "one" });
  const { sessionId } = session;
  await client.stop();

  Object.assign(fixture.env, { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" });
  const copilot = await startCopilotClient(fixture);
  const resumed = await copilot.resumeSession(sessionId, { onPermissionRequest: approveAll });
  const problem =
    "openai-compatible:fake-model needs an endpoint (e.g. http://127.0.0.1:8000/v1): set the " +
    'session\'s provider (createSession({ model, provider: { type: "openai", baseUrl } })) ' +
    "or TURNLOOP_BASE_URL in the server's environment; or switch the session's model " +
    "(session.model.switchTo).";
  const refusals = await Promise.all([
    resumed.rpc.model.setReasoningEffort({ reasoningEffort: "low" }).catch(codeAndMessage),
    resumed.rpc.history.compact().catch(codeAndMessage),
  ]);
  expect(refusals).toEqual([
    {
      code: -32602,
      message: `session.model.setReasoningEffort: ${problem} Nothing was changed.`,
    },
    { code: -32602, message: `session.history.compact: ${problem} Nothing was compacted.` },
  ]);
  expect(fixture.model.requests).toHaveLength(1);
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  expect(log).not.toContain("session.model_change");
  expect(log).not.toContain("session.compaction_start");
});

function codeAndMessage(error: unknown): { code: unknown; message: unknown } {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code, message };
}
