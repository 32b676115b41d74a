import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Issue 17: session/set_model (the former unstable model API) next to the `model` config option,
// both through the session host's model resolution, over the built CLI as a child process.

const fixture = ChildFixture.forEachTest();

const modeOption = expect.objectContaining({ id: "mode", currentValue: "ask" });
const sandboxOption = expect.objectContaining({
  id: "sandbox",
  currentValue: "danger-full-access",
});
const modelOption = (current: string) => ({
  type: "select",
  id: "model",
  name: "Model",
  category: "model",
  currentValue: current,
  options: [
    { value: current, name: current },
    ...["openai-compatible:fake-model", "openai-compatible:other-model"]
      .filter((id) => id !== current)
      .map((id) => ({ value: id, name: id })),
  ],
});

describe("session/set_model", () => {
  test("switches the model of the next prompt and updates the config option", async () => {
    fixture.server.enqueue({ text: "From the other model." });
    const agent = fixture.startAgent({ TURNLOOP_MODELS: "openai-compatible:other-model" });
    await agent.initialize();
    const created = await agent.client.request(acp.methods.agent.session.new, {
      cwd: fixture.cwd,
      mcpServers: [],
    });
    const { sessionId } = created;
    expect(created.configOptions).toEqual([
      modeOption,
      modelOption("openai-compatible:fake-model"),
      sandboxOption,
    ]);

    expect(
      await agent.client.request("session/set_model", {
        sessionId,
        modelId: "openai-compatible:other-model",
      }),
    ).toEqual({});
    expect(await agent.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    const body = fixture.server.requests[0]?.body as { model?: string };
    expect(body.model).toBe("other-model");
    expect(
      agent.updates(sessionId).filter((update) => update.sessionUpdate === "config_option_update"),
    ).toEqual([
      {
        sessionUpdate: "config_option_update",
        configOptions: [modeOption, modelOption("openai-compatible:other-model"), sandboxOption],
      },
    ]);

    await expect(
      agent.client.request("session/set_model", { sessionId, modelId: "nonsense:x" }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown model "nonsense:x"'),
    });
    // A bare name runs on the provider in use (host-models.ts withProvider; a session-28 trial).
    expect(
      await agent.client.request("session/set_model", { sessionId, modelId: "third-model" }),
    ).toEqual({});
    expect(agent.updates(sessionId).at(-1)).toEqual({
      sessionUpdate: "config_option_update",
      configOptions: [modeOption, modelOption("openai-compatible:third-model"), sandboxOption],
    });
    await expect(
      agent.client.request("session/set_model", {
        sessionId: "sess_nope",
        modelId: "openai-compatible:x",
      }),
    ).rejects.toMatchObject({ code: -32002, data: { sessionId: "sess_nope" } });
    await expect(agent.client.request("session/set_model", { sessionId })).rejects.toMatchObject({
      code: -32602,
    });
    expect(await agent.end()).toBe(0);
  });
});
