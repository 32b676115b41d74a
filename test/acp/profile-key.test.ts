import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A config profile whose `apiKeyEnv` names a variable that is not set (README, "Config files";
// test/cli/profile-words.test.ts for -p): the editor is told at `initialize` which variable the
// key is read from, and a prompt is refused with auth-required (-32000) naming it and the
// profile, before any request reaches the model.

const fixture = ChildFixture.forEachTest();

test("an unset apiKeyEnv variable: initialize names it, the prompt answers -32000, no request", async () => {
  const file = join(fixture.home, "config.json");
  await writeFile(
    file,
    JSON.stringify({
      model: "vllm:fake-model",
      providers: {
        vllm: {
          type: "openai-compatible",
          baseUrl: `${fixture.server.url}/v1`,
          apiKeyEnv: "VLLM_API_KEY",
        },
      },
    }),
  );
  const agent = fixture.startAgent({
    TURNLOOP_MODEL: "",
    TURNLOOP_BASE_URL: "",
    OPENAI_API_KEY: "sk-openai-not-for-vllm",
  });
  const answer = await agent.client.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  expect(answer.authMethods?.map((method) => method.id)).toEqual(["env:VLLM_API_KEY"]);
  const sessionId = await agent.newSession();
  await expect(agent.prompt(sessionId, "hello")).rejects.toMatchObject({
    code: -32000,
    message: `Authentication required: vllm:fake-model needs an API key: VLLM_API_KEY is not set (providers.vllm.apiKeyEnv in ${file} names it); set it, or TURNLOOP_API_KEY. Set it where the editor starts turnloop acp, then restart the agent.`,
    data: {
      modelId: "vllm:fake-model",
      environmentVariable: "VLLM_API_KEY",
      authMethodId: "env:VLLM_API_KEY",
    },
  });
  expect(fixture.server.requests).toEqual([]);
  expect(await agent.end()).toBe(0);
});
