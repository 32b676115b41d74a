import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Session 41 left it: `session/load` opens a session whose model cannot run here (it replays the
// log; a prompt answers with the problem), but `session/resume` still refused it with -32603, so
// an editor that resumes rather than loads could neither open the session nor switch its model.
// ACP v1 session-setup: the model is needed only when a prompt is sent
// (/work/shared/reference/acp.md). A resume opens it the same way; a model switch then works.

const fixture = ChildFixture.forEachTest();

test("session/resume of a session whose model has no endpoint here: resumed; a prompt answers -32603 naming the endpoint; after set_model the next prompt runs", async () => {
  const first = fixture.startAgent();
  await first.initialize();
  const sessionId = await first.newSession();
  fixture.server.enqueue({ text: "One." });
  expect(await first.prompt(sessionId, "one")).toEqual({ stopReason: "end_turn" });
  expect(await first.end()).toBe(0);

  // No endpoint for openai-compatible:fake-model here, no configured model to put in its place;
  // a config profile `lab` reaches the fake model.
  const lab = { type: "openai-compatible", baseUrl: `${fixture.server.url}/v1` };
  await writeFile(join(fixture.home, "config.json"), JSON.stringify({ providers: { lab } }));
  const agent = fixture.startAgent({ TURNLOOP_BASE_URL: "", TURNLOOP_MODEL: "" });
  await agent.initialize();
  const resumed = await agent.client.request(acp.methods.agent.session.resume, {
    sessionId,
    cwd: fixture.cwd,
    mcpServers: [],
  });
  expect(resumed).toMatchObject({ modes: expect.anything() });
  const answer = await agent.prompt(sessionId, "two").then(
    () => "answered",
    (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
  );
  expect(answer).toEqual({
    code: -32603,
    message: expect.stringContaining("openai-compatible:fake-model needs an endpoint"),
  });
  expect(fixture.server.requests).toHaveLength(1);

  await agent.client.request("session/set_model", { sessionId, modelId: "lab:fake-model" });
  fixture.server.enqueue({ text: "Three." });
  expect(await agent.prompt(sessionId, "three")).toEqual({ stopReason: "end_turn" });
  expect(fixture.server.requests).toHaveLength(2);
  const history = JSON.stringify(fixture.server.requests[1]?.body);
  expect(history).toContain('"one"');
  expect(history).toContain("One.");
  expect(history).toContain('"three"');
  expect(history).not.toContain('"two"');
  // No model is configured for new sessions here: said on stderr at the start, exit 64 at stdin's
  // close (test/acp/invalid-config.test.ts), as after a load.
  expect(await agent.end()).toBe(64);
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  expect(log).not.toContain('"two"');
  expect(log).toContain('"newModel":"lab:fake-model"');
});
