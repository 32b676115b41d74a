import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  approveAll,
  type CopilotSession,
  defineTool,
  type SessionConfig,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { copilotClassesFile, record } from "./copilot-classes-support.js";
import { chatBody } from "./support.js";

/**
 * What an app written for the official `@github/copilot-sdk` sees when turnloop is its CLI, class
 * by class (issue 16), as it sets a session up: replies, models, tool sets, the system and user
 * messages, modes and request headers. Each test drives turnloop through the SDK and asserts the
 * app's view and the requests turnloop sent to the model (copilot-classes-outcomes.test.ts: what
 * follows once a session runs).
 */

const { fixture, client, requestsSince, provider } = copilotClassesFile();

const REPORT_INTENT = { id: "call_intent", name: "report_intent", arguments: '{"intent":"x"}' };

describe("non-streaming sessions and split replies", () => {
  test.each([
    [false, "non-streaming"],
    [true, "streaming"],
  ])(
    "streaming: %s — every choice of a split reply is merged; unknown tools get Copilot's wording",
    async (streaming) => {
      const session = await client().createSession({
        onPermissionRequest: approveAll,
        model: "claude-sonnet-4.5",
        provider: provider(),
        ...(streaming ? { streaming: true } : {}),
      });
      const events = record(session);
      await writeFile(join(fixture.cwd, "split.txt"), "split\n");
      const from = fixture.model.requests.length;
      fixture.model.enqueue(
        {
          text: "Reading it.",
          toolCalls: [
            REPORT_INTENT,
            { id: "call_view", name: "view", arguments: '{"path":"split.txt"}' },
          ],
          splitChoices: true,
        },
        { text: "It says split." },
      );
      const reply = await session.sendAndWait({ prompt: "Read split.txt" });
      expect(reply?.data.content).toBe("It says split.");
      const sent = requestsSince(from).map(chatBody);
      expect(sent.map((request) => request.stream === true)).toEqual([streaming, streaming]);
      const first = events.find((event) => event.type === "assistant.message");
      expect(first?.type === "assistant.message" && first.data).toMatchObject({
        content: "Reading it.",
        toolRequests: [
          { toolCallId: "call_intent", name: "report_intent" },
          { toolCallId: "call_view", name: "view" },
        ],
      });
      expect(events.some((event) => event.type === "assistant.message_delta")).toBe(streaming);
      const results = sent[1]?.messages.filter((message) => message.role === "tool");
      expect(results?.map((message) => [message.tool_call_id, message.content])).toEqual([
        [
          "call_intent",
          "Tool 'report_intent' does not exist. Available tools that can be called are view, create, edit, grep, glob, bash, update_plan.",
        ],
        ["call_view", "1. split"],
      ]);
      await session.disconnect();
    },
  );
});

describe("model selection", () => {
  test("bare names, switchTo with reasoning effort, models.list ids, provider modelId and wireModel", async () => {
    // No provider: a bare name runs on the server's configured provider and endpoint.
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      model: "claude-sonnet-4.5",
    });
    const events = record(session);
    let from = fixture.model.requests.length;
    fixture.model.enqueue({ text: "one" }, { text: "two" });
    await session.sendAndWait({ prompt: "hi" });
    expect(chatBody(requestsSince(from)[0]).model).toBe("claude-sonnet-4.5");
    await session.setModel("gpt-5.4", { reasoningEffort: "high" });
    from = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "again" });
    expect(chatBody(requestsSince(from)[0]).model).toBe("gpt-5.4");
    expect(requestsSince(from)[0]?.body).toMatchObject({ reasoning_effort: "high" });
    const change = events.find((event) => event.type === "session.model_change");
    expect(change?.data).toEqual({
      previousModel: "claude-sonnet-4.5",
      newModel: "gpt-5.4",
      reasoningEffort: "high",
    });
    expect(await session.rpc.model.getCurrent()).toMatchObject({
      modelId: "gpt-5.4",
      reasoningEffort: "high",
    });
    const models = await client().listModels();
    expect(models.map((model) => model.id)).toEqual(["fake-model"]);
    await session.setModel(models[0]?.id ?? "");
    await session.disconnect();

    // A provider without a model: provider.modelId names it; wireModel wins on the wire.
    for (const [extra, wire] of [
      [{ modelId: "claude-sonnet-4.5" }, "claude-sonnet-4.5"],
      [{ modelId: "claude-sonnet-4.5", wireModel: "test-wire-model" }, "test-wire-model"],
    ] as const) {
      const byok = await client().createSession({
        onPermissionRequest: approveAll,
        provider: provider(extra),
      });
      from = fixture.model.requests.length;
      fixture.model.enqueue({ text: "ok" });
      await byok.sendAndWait({ prompt: "hi" });
      expect(chatBody(requestsSince(from)[0]).model).toBe(wire);
      await byok.disconnect();
    }
  });
});

describe("tool sets", () => {
  test("availableTools, excludedTools and the empty tool set, on create and on resume", async () => {
    const names = async (session: CopilotSession) => {
      const from = fixture.model.requests.length;
      fixture.model.enqueue({ text: "ok" });
      await session.sendAndWait({ prompt: "list" });
      return (chatBody(requestsSince(from)[0]).tools ?? []).map((tool) => tool.function.name);
    };
    const lookup = defineTool("lookup", { parameters: { type: "object" }, handler: () => "x" });
    const only = await client().createSession({
      onPermissionRequest: approveAll,
      tools: [lookup],
      availableTools: ["view", "lookup"],
    });
    expect(await names(only)).toEqual(["view", "lookup"]);
    const without = await client().createSession({
      onPermissionRequest: approveAll,
      excludedTools: ["bash", "edit"],
    });
    expect(await names(without)).not.toContain("bash");
    expect(await names(without)).toContain("view");
    const none = await client().createSession({
      onPermissionRequest: approveAll,
      availableTools: [],
    });
    expect(await names(none)).toEqual([]);
    await none.disconnect();
    const resumed = await client().resumeSession(none.sessionId, {
      onPermissionRequest: approveAll,
      availableTools: ["grep"],
    });
    expect(await names(resumed)).toEqual(["grep"]);
    await Promise.all([only.disconnect(), without.disconnect(), resumed.disconnect()]);
  });
});

describe("system message", () => {
  test("append, replace, customised sections and a transform callback", async () => {
    const systemOf = async (config: Partial<SessionConfig>) => {
      const session = await client().createSession({ onPermissionRequest: approveAll, ...config });
      const from = fixture.model.requests.length;
      fixture.model.enqueue({ text: "ok" });
      await session.sendAndWait({ prompt: "hi" });
      await session.disconnect();
      const system = chatBody(requestsSince(from)[0]).messages.find((m) => m.role === "system");
      return String(system?.content);
    };
    const appended = await systemOf({ systemMessage: { content: "Always say APPENDED." } });
    expect(appended).toMatch(/^You are turnloop[\s\S]*\n\nAlways say APPENDED\.$/);
    expect(await systemOf({ systemMessage: { mode: "replace", content: "Only this." } })).toBe(
      "Only this.",
    );
    const customised = await systemOf({
      systemMessage: {
        mode: "customize",
        sections: {
          identity: { action: "replace", content: "You are a test agent." },
          guidelines: { action: "remove" },
          environment_context: { action: (current: string) => `${current} TRANSFORMED` },
          tone: { action: "append", content: "Be brief." },
        },
        content: "END",
      },
    });
    expect(customised).toMatch(
      /^You are a test agent\.\n\nWorking directory: .* TRANSFORMED\n\nBe brief\.\n\nEND$/,
    );
  });
});

describe("user message shape", () => {
  test("file, directory, selection and blob attachments as Copilot puts them to the model", async () => {
    await writeFile(join(fixture.cwd, "attached-file.txt"), "FILE_ATTACHMENT_SENTINEL\n");
    await mkdir(join(fixture.cwd, "attached-directory"), { recursive: true });
    await writeFile(join(fixture.cwd, "attached-directory", "a.txt"), "a");
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const from = fixture.model.requests.length;
    fixture.model.enqueue({ text: "ok" });
    await session.sendAndWait({
      prompt: "Look.",
      attachments: [
        {
          type: "selection",
          filePath: join(fixture.cwd, "selected-file.cs"),
          displayName: "selected-file.cs",
          selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 10 } },
          text: 'string Value = "SELECTION_SENTINEL";',
        },
        { type: "file", path: join(fixture.cwd, "attached-file.txt") },
        { type: "directory", path: join(fixture.cwd, "attached-directory") },
        // An image blob is an image of the prompt (blob-attachments.test.ts); this one is saved.
        { type: "blob", data: "JVBERi0=", mimeType: "application/pdf", displayName: "doc.pdf" },
      ],
    });
    const user = chatBody(requestsSince(from)[0]).messages.find((m) => m.role === "user");
    const content = String(user?.content).replaceAll(fixture.cwd, "<cwd>");
    expect(content.replace(/attachment-\d+-3/, "attachment-N")).toBe(
      [
        "<ide_selection>",
        "The user has the following text selected in their IDE. This may or may not be related to their request.",
        "File: selected-file.cs (line 2)",
        "```",
        'string Value = "SELECTION_SENTINEL";',
        "```",
        "</ide_selection>",
        "",
        "",
        "",
        "Look.",
        "",
        "",
        "",
        "<tagged_files>",
        "* <cwd>/attached-file.txt (1 lines)",
        "* <cwd>/attached-directory (1 items)",
        `* ${fixture.home}/session-state/${session.sessionId}/files/attachment-N.pdf (doc.pdf, application/pdf)`,
        "</tagged_files>",
      ].join("\n"),
    );
    await session.disconnect();
  });
});

describe("modes", () => {
  test("mode.set and send({mode}) take plan and shell; session.mode_changed; plan offers read-only tools", async () => {
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const events = record(session);
    await session.rpc.mode.set({ mode: "plan" });
    expect(await session.rpc.mode.get()).toBe("plan");
    let from = fixture.model.requests.length;
    fixture.model.enqueue({ text: "plan" }, { text: "shell" });
    await session.sendAndWait({ prompt: "plan it" });
    const planned = chatBody(requestsSince(from)[0]);
    expect(planned.tools?.map((tool) => tool.function.name)).not.toContain("bash");
    expect(String(planned.messages[0]?.content)).toContain("Plan mode:");
    from = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "ls", agentMode: "shell" });
    expect(String(chatBody(requestsSince(from)[0]).messages[0]?.content)).toContain("Shell mode:");
    expect(
      events.flatMap((event) => (event.type === "session.mode_changed" ? [event.data] : [])),
    ).toEqual([{ previousMode: "interactive", newMode: "plan" }]);
    await session.disconnect();
  });
});

describe("requests to the model", () => {
  test("per-request headers, clientName in the user agent, provider headers on create and resume", async () => {
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      clientName: "ts-public-surface-client",
      model: "claude-sonnet-4.5",
      provider: provider({ headers: { "x-copilot-sdk-provider-header": "on-create" } }),
    });
    let from = fixture.model.requests.length;
    fixture.model.enqueue({ text: "ok" }, { text: "ok" });
    await session.sendAndWait({ prompt: "hi", requestHeaders: { "x-per-request": "yes" } });
    const [sent] = requestsSince(from);
    expect(sent?.headers["x-per-request"]).toBe("yes");
    expect(sent?.headers["user-agent"]).toContain("ts-public-surface-client");
    expect(sent?.headers["x-copilot-sdk-provider-header"]).toBe("on-create");
    expect(sent?.headers.authorization).toBe("Bearer dummy");
    await session.disconnect();
    const resumed = await client().resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
      model: "claude-sonnet-4.5",
      provider: provider({ headers: { "x-copilot-sdk-provider-header": "on-resume" } }),
    });
    from = fixture.model.requests.length;
    await resumed.sendAndWait({ prompt: "again" });
    expect(requestsSince(from)[0]?.headers["x-copilot-sdk-provider-header"]).toBe("on-resume");
    expect(requestsSince(from)[0]?.headers["x-per-request"]).toBeUndefined();
    await resumed.disconnect();
  });
});
