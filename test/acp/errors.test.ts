import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { AcpHarness, requestMessages } from "./support.js";

describe("errors", () => {
  test("an unknown session is resource-not-found (-32002) with data.sessionId on every session method", async () => {
    const harness = await AcpHarness.start();
    const sessionId = "no-such-session";
    // The SDK's message is only "Resource not found": each says what to do.
    const notFound = {
      code: -32002,
      data: { sessionId },
      message: `Session ${sessionId} is not open on this connection: open it with session/load or session/resume first (a closed session is no longer open; a deleted one is gone)`,
    };
    const noLog = {
      code: -32002,
      data: { sessionId },
      message: `Session ${sessionId} does not exist here (it was deleted, or never made): session/list lists the sessions`,
    };
    const { session } = acp.methods.agent;
    await expect(harness.prompt(sessionId, "hi")).rejects.toMatchObject(notFound);
    await expect(
      harness.client.request(session.load, { sessionId, cwd: harness.cwd, mcpServers: [] }),
    ).rejects.toMatchObject(noLog);
    await expect(
      harness.client.request(session.resume, { sessionId, cwd: harness.cwd }),
    ).rejects.toMatchObject(noLog);
    await expect(
      harness.client.request(session.setMode, { sessionId, modeId: "auto" }),
    ).rejects.toMatchObject(notFound);
    await expect(
      harness.client.request(session.setConfigOption, {
        sessionId,
        configId: "mode",
        value: "auto",
      }),
    ).rejects.toMatchObject(notFound);
    await expect(
      harness.client.request(session.load, {
        sessionId: "../../etc",
        cwd: harness.cwd,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    // Idempotent by the spec: the SDK client reports -32002 from close and delete as success.
    await expect(harness.client.request(session.close, { sessionId })).resolves.toEqual({});
    await expect(harness.client.request(session.delete, { sessionId })).resolves.toEqual({});
  });

  test("a prompt to a session closed on this connection says it is not open and how to open it", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await harness.client.request(acp.methods.agent.session.close, { sessionId });
    await expect(harness.prompt(sessionId, "still there?")).rejects.toMatchObject({
      code: -32002,
      data: { sessionId },
      message: `Session ${sessionId} is not open on this connection: open it with session/load or session/resume first (a closed session is no longer open; a deleted one is gone)`,
    });
  });

  test("bad params are -32602 with a message that says what is wrong", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await expect(
      harness.client.request("session/prompt", { prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      harness.client.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'session/set_mode: modeId: expected ask, auto or autopilot, not "yolo"',
    });
    await expect(
      harness.setConfigOption(sessionId, "model", "nonsense:model"),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("unknown model") });
    await expect(harness.setConfigOption(sessionId, "colour", "blue")).rejects.toMatchObject({
      code: -32602,
      message:
        'session/set_config_option: configId: expected one of mode, model, sandbox, not "colour"',
    });
    // A prompt with nothing for the model is refused before any request (a fresh user's trial).
    for (const prompt of [[], [{ type: "text", text: " \n" }]]) {
      await expect(
        harness.client.request(acp.methods.agent.session.prompt, { sessionId, prompt }),
      ).rejects.toMatchObject({
        code: -32602,
        message:
          "session/prompt: prompt: expected at least one content block with text or an attachment; it is empty",
      });
    }
    expect(harness.server.requests).toEqual([]);
  });

  test("case 17: a provider failure is a JSON-RPC error with the status and message, logged, and the next prompt works", async () => {
    const harness = await AcpHarness.start();
    const boom = { status: 500, body: { error: { message: "boom" } } };
    harness.server.enqueue(boom, boom, { text: "fine" });
    const sessionId = await harness.newSession();
    const failure = await harness.prompt(sessionId, "hi").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(acp.RequestError);
    expect(failure).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^The model request failed: .*HTTP 500.*boom/),
      data: { errorType: "server", statusCode: 500 },
    });
    // The one retry (the harness allows one) is said; no reply text is.
    const texts = harness
      .updates(sessionId)
      .flatMap((update) =>
        update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
          ? [update.content.text]
          : [],
      );
    expect(texts).toEqual([]);
    const thoughts = harness
      .updates(sessionId)
      .flatMap((update) =>
        update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
          ? [update.content.text]
          : [],
      );
    expect(thoughts).toEqual([
      expect.stringMatching(/^⟳ retrying in \d+(?:\.\d)? (?:ms|s|min) \(attempt 1\): .*boom/),
    ]);
    const events = await harness.persisted(sessionId);
    expect(events.map((event) => event.type)).toContain("session.error");
    expect(events.some((event) => event.type === "assistant.message")).toBe(false);

    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(harness.server, -1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "user",
    ]);
  });

  test("case 17: an authentication failure is ACP's auth-required -32000", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({
      status: 401,
      body: { error: { message: "invalid api key", type: "authentication_error" } },
    });
    const sessionId = await harness.newSession();
    await expect(harness.prompt(sessionId, "hi")).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("invalid api key"),
    });
  });

  test("no model configured: session/new fails with a message saying how to configure one", async () => {
    const harness = await AcpHarness.start({ env: { TURNLOOP_MODEL: "" } });
    await expect(harness.newSession()).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("TURNLOOP_MODEL"),
    });
  });

  test("garbage lines and an oversized line get error answers and the agent keeps serving", async () => {
    const harness = await AcpHarness.start({ maxMessageBytes: 1024 * 1024 });
    harness.sendRaw("{not json\n");
    harness.sendRaw("[1,2]\n");
    harness.sendRaw("\n   \n");
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: "big-1",
      method: "session/prompt",
      params: { sessionId: "x", prompt: [{ type: "text", text: "y".repeat(2 * 1024 * 1024) }] },
    });
    // Split across writes, as a pipe delivers it.
    for (let start = 0; start < big.length; start += 65_536) {
      harness.sendRaw(big.slice(start, start + 65_536));
    }
    harness.sendRaw("\n");
    const tooLarge = await harness.waitForWire((entry) => entry.message.id === "big-1");
    expect(tooLarge.message.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^Message too large: \d+ bytes; the limit is 1048576 bytes/),
    });
    const errors = harness.wire
      .filter((entry) => entry.direction === "to-client" && entry.message.id === null)
      .map((entry) => (entry.message.error as { code: number }).code);
    expect(errors).toEqual([-32700, -32600]);
    harness.server.enqueue({ text: "still here" });
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(harness.wire.every((entry) => !("unparsable" in entry.message))).toBe(true);
  });
});
