import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { gate } from "../support/gate.js";
import { announced, completedWithText, inProgress, viewOf } from "./expected-updates.js";
import { AcpHarness, normalise, requestMessages } from "./support.js";
import { thoughtTexts } from "./update-texts.js";

const COMMANDS = {
  sessionUpdate: "available_commands_update",
  availableCommands: [
    { name: "help", description: "List the commands" },
    {
      name: "model",
      description: "Show the model, or switch to another one for the next prompts",
      input: { hint: "provider:model (optional)" },
    },
    {
      name: "mode",
      description: "Show the mode, or switch: ask, auto or autopilot",
      input: { hint: "ask | auto | autopilot" },
    },
    { name: "usage", description: "Tokens and cost of this session so far" },
    { name: "sessions", description: "List the sessions of this folder, newest first" },
    {
      name: "compact",
      description:
        "Summarise the older conversation to free context; recent turns stay as they are",
      input: { hint: "what the summary should focus on (optional)" },
    },
    { name: "mcp", description: "The session's MCP servers: state and tool count" },
    {
      name: "permissions",
      description: "The permission rules in force and where each comes from; remove or save grants",
      input: { hint: "remove N | save (optional)" },
    },
  ],
};

describe("initialize and session/new", () => {
  test("initialize answers protocol 1 with only what works, even when asked for a later version", async () => {
    const harness = await AcpHarness.start();
    const answer = await harness.client.request(acp.methods.agent.initialize, {
      protocolVersion: 7,
    });
    expect(answer).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: {
          list: {},
          resume: {},
          close: {},
          delete: {},
          additionalDirectories: {},
        },
      },
      authMethods: [],
      agentInfo: { name: "turnloop", title: "turnloop", version: "0.1.0" },
    });
  });

  test.for([
    [undefined, "Every tool runs without asking; commands run unconfined."],
    ["workspace-write", "Every tool runs without asking; commands run in the sandbox."],
  ] as const)(
    "--allow-all-tools with --sandbox %s: mode auto says what it lets run",
    async ([sandbox, auto]) => {
      const harness = await AcpHarness.start({
        face: { allowAllTools: true, ...(sandbox === undefined ? {} : { sandbox }) },
      });
      const answer = await harness.client.request(acp.methods.agent.session.new, {
        cwd: harness.cwd,
        mcpServers: [],
      });
      expect(answer.modes).toEqual({
        currentModeId: "auto",
        availableModes: [
          {
            id: "ask",
            name: "Ask",
            description: "Reads inside the workspace run freely; edits and commands ask first.",
          },
          { id: "auto", name: "Auto", description: auto },
          {
            id: "autopilot",
            name: "Autopilot",
            description: "Works on its own until the task is done; asks as Auto does.",
          },
        ],
      });
      const mode = answer.configOptions?.[0];
      expect(mode?.type === "select" ? mode.options : []).toEqual(
        answer.modes?.availableModes.map(({ id, name, description }) => ({
          value: id,
          name,
          description,
        })),
      );
    },
  );

  test("session/new answers with modes and config options; commands follow the answer (case 25)", async () => {
    const harness = await AcpHarness.start({
      env: { TURNLOOP_MODELS: "openai-compatible:other-model" },
    });
    const answer = await harness.client.request(acp.methods.agent.session.new, {
      cwd: harness.cwd,
      mcpServers: [{ name: "files", command: "/bin/true", args: [], env: [] }],
    });
    expect(answer.modes?.currentModeId).toBe("ask");
    expect(answer.modes?.availableModes.map((mode) => mode.id)).toEqual([
      "ask",
      "auto",
      "autopilot",
    ]);
    expect(
      answer.configOptions?.map((option) => [option.id, option.category, option.currentValue]),
    ).toEqual([
      ["mode", "mode", "ask"],
      ["model", "model", "openai-compatible:fake-model"],
      ["sandbox", "_sandbox", "danger-full-access"],
    ]);
    const model = answer.configOptions?.[1];
    expect(model?.type === "select" ? model.options : []).toEqual([
      { value: "openai-compatible:fake-model", name: "openai-compatible:fake-model" },
      { value: "openai-compatible:other-model", name: "openai-compatible:other-model" },
    ]);
    await harness.waitForUpdate((update) => update.sessionUpdate === "available_commands_update");
    const answerAt = harness.answerIndex("session/new");
    const firstUpdateAt = harness.wire.findIndex(
      (entry) => entry.message.method === "session/update",
    );
    expect(firstUpdateAt).toBeGreaterThan(answerAt);
    // `/bin/true` is no MCP server: the failure is reported (a thought to a client that offers no
    // notices, acp/notices.ts) and the session goes on. It may come with the commands or after.
    await expect
      .poll(() => harness?.stderr ?? [])
      .toEqual([expect.stringMatching(/^turnloop: MCP server files failed: /)]);
    await harness.waitForUpdate((update) => update.sessionUpdate === "agent_thought_chunk");
    const updates = harness.updates(answer.sessionId);
    expect(updates).toEqual([
      COMMANDS,
      expect.objectContaining({ sessionUpdate: "agent_thought_chunk" }),
    ]);
    expect(thoughtTexts(updates)).toEqual([
      expect.stringMatching(/^⚠ MCP server files failed: .+\n$/),
    ]);
  });

  test("a relative or missing cwd is invalid params", async () => {
    const harness = await AcpHarness.start();
    for (const cwd of ["relative/dir", join(harness.cwd, "missing")]) {
      await expect(
        harness.client.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(cwd) });
    }
  });
});

describe("a prompt turn", () => {
  test("two model turns with a tool call: every update, in order, before the answer", async () => {
    const harness = await AcpHarness.start();
    await writeFile(join(harness.cwd, "a.txt"), "hello\n");
    harness.server.enqueue(
      {
        text: ["Let me ", "look."],
        toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"a.txt"}' }],
      },
      { text: "It says hello.", usage: { input: 40, output: 6 } },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "What is in a.txt?")).toEqual({
      stopReason: "end_turn",
    });
    const text = (value: string) => ({ type: "text", text: value });
    expect(normalise(harness.updates(sessionId), harness.cwd)).toEqual([
      COMMANDS,
      { sessionUpdate: "session_info_update", title: "What is in a.txt?", updatedAt: "<time>" },
      { sessionUpdate: "agent_message_chunk", content: text("Let me "), messageId: "message-1" },
      { sessionUpdate: "agent_message_chunk", content: text("look."), messageId: "message-1" },
      // Announced as soon as the model starts the call, completed once its arguments are.
      announced("call_1", "view", "read"),
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", ...viewOf("a.txt") },
      { sessionUpdate: "usage_update", used: 15, size: 128_000 },
      inProgress("call_1"),
      completedWithText("call_1", "1. hello"),
      {
        sessionUpdate: "agent_message_chunk",
        content: text("It says hello."),
        messageId: "message-2",
      },
      { sessionUpdate: "usage_update", used: 46, size: 128_000 },
    ]);
    const lastUpdateAt = harness.wire.findLastIndex(
      (entry) => entry.message.method === "session/update",
    );
    expect(harness.answerIndex("session/prompt")).toBeGreaterThan(lastUpdateAt);
    expect(requestMessages(harness.server, 1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);

    // A second prompt has no second title.
    harness.server.enqueue({ text: "Bye." });
    await harness.prompt(sessionId, "Thanks");
    expect(
      harness.updates(sessionId).filter((update) => update.sessionUpdate === "session_info_update"),
    ).toHaveLength(1);
  });

  test("text, resource_link and embedded resources reach the model as text, a PNG as an image part", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "ok" });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, [
      { type: "text", text: "Compare these." },
      {
        type: "resource_link",
        uri: `file://${harness.cwd}/b.ts`,
        name: "b.ts",
        mimeType: "text/x-typescript",
      },
      {
        type: "resource",
        resource: {
          uri: `file://${harness.cwd}/a.ts`,
          text: "export const a = 1;",
          mimeType: "text/x-typescript",
        },
      },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" },
    ]);
    // Chat Completions takes the PNG as an image_url part (issue 27); the SVG is no model's type.
    const body = harness.server.requests[0]?.body as { messages: Array<{ content: unknown }> };
    expect(body.messages.at(-1)?.content).toEqual([
      {
        type: "text",
        text: [
          "Compare these.",
          `[Referenced: b.ts at ${harness.cwd}/b.ts (text/x-typescript)]`,
          `<context source="${harness.cwd}/a.ts">\nexport const a = 1;\n</context>`,
          "[An image was attached (image/svg+xml, 5 bytes); its type is not one models take (PNG, JPEG, GIF, WebP), so it is not shown.]",
        ].join("\n\n"),
      },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]);
  });

  test.each([
    ["a 5 MB prompt line", 5 * 1024 * 1024],
    // 9 MiB: over HUGE_MESSAGE_BYTES, so collected between stages and sent without a body tee.
    ["a 9 MiB prompt line (a huge message)", 9 * 1024 * 1024],
  ])("%s is served, and answered with nothing else on the wire", async (_name, length) => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "That is long." });
    const sessionId = await harness.newSession();
    const long = "x".repeat(length);
    expect(await harness.prompt(sessionId, long)).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(harness.server, 0).at(-1)?.content).toBe(long);
    // Every request is answered once, and nothing else is (src/acp/framing.ts reads the lines).
    const answers = harness.wire.filter(
      (entry) => entry.direction === "to-client" && entry.message.method === undefined,
    );
    expect(answers.map((entry) => entry.message.id)).toEqual(
      harness.wire
        .filter((entry) => entry.direction === "to-agent" && entry.message.method !== undefined)
        .filter((entry) => entry.message.id !== undefined)
        .map((entry) => entry.message.id),
    );
  });
});

describe("case 26: a second prompt while one runs", () => {
  test("is rejected at once, the first turn is unaffected, nothing of it is logged, and later prompts work", async () => {
    const harness = await AcpHarness.start();
    // The first answer waits, mid-stream, until the other prompts were refused.
    const refused = gate();
    harness.server.enqueue(
      {
        text: Array.from({ length: 30 }, () => "A"),
        pause: { afterEvents: 3, until: refused.opened },
      },
      { text: "D" },
    );
    const sessionId = await harness.newSession();
    const first = harness.prompt(sessionId, "A");
    await harness.waitForUpdate((update) => update.sessionUpdate === "agent_message_chunk");
    const second = harness.prompt(sessionId, "B");
    const third = harness.prompt(sessionId, "C");
    const busy = {
      code: -32600,
      message: `Session ${sessionId} is already running a prompt; wait for its answer or send session/cancel first.`,
    };
    await expect(second).rejects.toMatchObject(busy);
    await expect(third).rejects.toMatchObject(busy);
    refused.open();
    expect(await first).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt(sessionId, "D")).toEqual({ stopReason: "end_turn" });
    const prompts = (await harness.persisted(sessionId))
      .filter((event) => event.type === "user.message")
      .map((event) => event.data.content);
    expect(prompts).toEqual(["A", "D"]);
    expect(harness.server.requests).toHaveLength(2);
  });
});
