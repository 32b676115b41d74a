import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness, requestMessages } from "./support.js";
import { agentTexts, thoughtTexts } from "./update-texts.js";

const OTHER = "openai-compatible:other-model";

function modelOf(current: AcpHarness, index: number): unknown {
  const body = current.server.requests.at(index)?.body as { model?: string } | undefined;
  return body?.model;
}

function toolNames(current: AcpHarness, index: number): string[] {
  const body = current.server.requests.at(index)?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

function permissionCount(current: AcpHarness): number {
  return current.behaviour.calls.filter((call) => call.method === "session/request_permission")
    .length;
}

describe("modes and config options", () => {
  test("set_mode auto: config_option_update follows, and commands run without asking", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await harness.client.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    const update = harness
      .updates(sessionId)
      .find((candidate) => candidate.sessionUpdate === "config_option_update");
    expect(
      update?.sessionUpdate === "config_option_update" ? update.configOptions[0]?.currentValue : "",
    ).toBe("auto");
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo auto"}' }] },
      { text: "done" },
    );
    await harness.prompt(sessionId, "run it");
    expect(permissionCount(harness)).toBe(0);
    expect(requestMessages(harness.server, 1).at(-1)?.content).toBe(
      "auto\n<exited with exit code 0>",
    );
  });

  test("set_config_option mode: the full options come back and current_mode_update follows", async () => {
    const harness = await AcpHarness.start({ face: { allowAllTools: true } });
    const sessionId = await harness.newSession();
    const answer = await harness.setConfigOption(sessionId, "mode", "ask");
    expect(answer.configOptions.map((option) => [option.id, option.currentValue])).toEqual([
      ["mode", "ask"],
      ["model", "openai-compatible:fake-model"],
      ["sandbox", "danger-full-access"],
    ]);
    expect(harness.updates(sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "ask",
    });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo ask"}' }] },
      { text: "done" },
    );
    await harness.prompt(sessionId, "run it");
    expect(permissionCount(harness)).toBe(1);
  });

  test("set_config_option model: the next prompt uses the other model", async () => {
    const harness = await AcpHarness.start({ env: { TURNLOOP_MODELS: OTHER } });
    harness.server.enqueue({ text: "one" }, { text: "two" });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    const answer = await harness.client.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: OTHER,
    });
    expect(answer.configOptions[1]?.currentValue).toBe(OTHER);
    await harness.prompt(sessionId, "second");
    expect([modelOf(harness, 0), modelOf(harness, 1)]).toEqual(["fake-model", "other-model"]);
  });
});

describe("slash commands", () => {
  test("/model shows and switches the model without a model request", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "/model")).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt(sessionId, `/model ${OTHER}`)).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt(sessionId, "/model nosuch:x")).toEqual({ stopReason: "end_turn" });
    // A bare name runs on the provider in use (host-models.ts withProvider; a session-28 trial).
    expect(await harness.prompt(sessionId, "/model third-model")).toEqual({
      stopReason: "end_turn",
    });
    expect(harness.server.requests).toHaveLength(0);
    const said = agentTexts(harness.updates(sessionId));
    expect(said).toEqual([
      "model: openai-compatible:fake-model\nchoices: openai-compatible:fake-model",
      `model: ${OTHER}`,
      expect.stringMatching(/^Error: unknown model "nosuch:x"/),
      "model: openai-compatible:third-model",
    ]);
    const optionUpdates = harness
      .updates(sessionId)
      .filter((update) => update.sessionUpdate === "config_option_update");
    expect(optionUpdates).toHaveLength(2);
    harness.server.enqueue({ text: "hi" });
    await harness.prompt(sessionId, "hello");
    expect(modelOf(harness, 0)).toBe("third-model");
  });

  test("/mode autopilot, then a task: autopilot works on it until task_complete", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({
      toolCalls: [{ id: "call_T", name: "task_complete", arguments: '{"summary":"All done."}' }],
    });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "/mode autopilot")).toEqual({
      stopReason: "end_turn",
    });
    expect(harness.updates(sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "autopilot",
    });
    expect(await harness.prompt(sessionId, "tidy up")).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(harness.server, 0).at(-1)?.content).toBe("tidy up");
    expect(toolNames(harness, 0)).toContain("task_complete");
  });

  test("autopilot's cap tells the client: a thought and the answer's _meta", async () => {
    const harness = await AcpHarness.start({ face: { maxAutopilotContinues: 1 } });
    harness.server.enqueue({ text: "I think it is done." }, { text: "Still done." });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "/mode autopilot");
    const before = harness.updates(sessionId).length;
    expect(await harness.prompt(sessionId, "tidy up")).toEqual({
      stopReason: "end_turn",
      _meta: { "turnloop/autopilotStopped": "cap_reached" },
    });
    const updates = harness.updates(sessionId).slice(before);
    expect(agentTexts(updates)).toEqual(["I think it is done.", "Still done."]);
    expect(thoughtTexts(updates)).toEqual([
      "⚠ Autopilot stopped after 1 continuation: the model did not call task_complete, so the task was not marked complete.\n",
    ]);
  });
});
