import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A model the server does not have (a 404 the model API itself answered, trial r3s46 F5) over ACP
// (`turnloop acp` as a child process): the prompt's error names the cure in the editor's words,
// the session's model setting or /model, never a command-line flag alone.

const fixture = ChildFixture.forEachTest();

test("a 404 for an unknown model names the session's model setting", async () => {
  fixture.server.enqueue({
    status: 404,
    body: { error: { message: "The model `fake-model` does not exist", type: "not_found" } },
  });
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  const failure = await agent.prompt(sessionId, "hi").catch((error: unknown) => error);
  const { code, message, data } = failure as { code: number; message: string; data: unknown };
  expect({ code, message, data }).toEqual({
    code: -32603,
    message: `The model request failed: HTTP 404 from ${fixture.server.url}/v1/chat/completions (model "fake-model"): The model \`fake-model\` does not exist; the server has no model "fake-model": switch with the session's model setting (the editor's model picker) or /model`,
    data: { errorType: "invalid_request", statusCode: 404 },
  });
  expect(await agent.end()).toBe(0);
});
