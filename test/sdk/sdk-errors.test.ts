import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defineTool, TurnloopClient } from "../../src/sdk/index.js";
import { fixtureForFile } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * Round 3 session 21's trial, item 4: the SDK's own errors say what is wrong in the app's words,
 * not the SDK's insides: settings of the wrong type are named before anything is sent ("tools.map
 * is not a function" was), and every call on a session whose server was killed says README's
 * "the turnloop server connection closed before answering <method>" ("Connection is disposed."
 * was, for a call made after the end).
 */
const fixture = fixtureForFile();
let tcp: TcpServer;
beforeAll(async () => {
  tcp = await startTcpServer(fixture);
});
afterAll(async () => {
  await tcp.stop();
});

describe("the SDK's errors", () => {
  test("settings of the wrong type are named, and the client goes on", async () => {
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    fixture.onClose(() => client.stop());
    const handler = () => "ok";
    const refusals = await Promise.allSettled([
      client.createSession({ tools: "x" } as never),
      client.createSession({ tools: [{ name: "lookup" }] } as never),
      client.createSession({ onPermissionRequest: "approve" } as never),
      client.createSession({ hooks: { onPreToolUse: true } } as never),
      client.resumeSession("some-id", { streaming: "yes" } as never),
      client.createSession("model" as never),
      client.createSession({ tools: [defineTool("", { handler })] }),
    ]);
    expect(refusals).toEqual(
      [
        'createSession: tools must be an array of tools (defineTool), not "x"',
        'createSession: tools[0] must be a tool (defineTool(name, {description, parameters, handler})), not {"name":"lookup"}',
        'createSession: onPermissionRequest must be a function, not "approve"',
        "createSession: hooks.onPreToolUse must be a function, not true",
        'resumeSession: streaming must be true or false, not "yes"',
        'createSession: the settings must be an object, not "model"',
        "createSession: tools[0] has an empty name: a tool's name is 1-64 letters, digits, '_' or '-'",
      ].map((message) => ({ status: "rejected", reason: new TypeError(message) })),
    );
    const tool = defineTool("lookup", { description: "Looks up", handler });
    // Refused by the server, in its words for a session's params.
    const declared = await Promise.allSettled([
      client.createSession({ tools: [tool, defineTool("lookup", { handler })] }),
      client.createSession({ tools: [defineTool("bash", { handler })] }),
    ]);
    expect(declared.map((result) => result.status === "rejected" && String(result.reason))).toEqual(
      [
        'Error: session.create: tools[1] "lookup" is declared twice',
        'Error: session.create: tools[0] "bash" clashes with a built-in tool: rename it or set overridesBuiltInTool',
      ],
    );
    const session = await client.createSession({ tools: [tool] });
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a wrong or unknown wire setting is named before anything is sent, in the server's words", async () => {
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    fixture.onClose(() => client.stop());
    const before = (await client.listSessions()).length;
    const refusals = await Promise.allSettled([
      client.createSession({ model: 3 } as never),
      client.createSession({ systemMessage: "be brief", availableTools: "bash" } as never),
      client.createSession({ modle: "openai-chat:x" } as never),
      client.createSession({ temperature: 0.2, infiniteSessions: { enabled: 1 } } as never),
      client.resumeSession("../etc", { mode: "fast" } as never),
    ]);
    expect(refusals).toEqual(
      [
        "createSession: model must be a string, not 3",
        'createSession: systemMessage must be an object, not "be brief"; availableTools must be an array, not "bash"',
        'createSession: unknown setting "modle" (did you mean "model"?)',
        'createSession: unknown setting "temperature" (neither turnloop nor the Copilot SDK has it; see SessionConfig); infiniteSessions.enabled must be true or false, not 1',
        `resumeSession: mode must be one of "interactive", "plan", "autopilot", "shell", not "fast"; sessionId must be letters, digits, '-' or '_' (at most 128), e.g. a UUID, not "../etc"`,
      ].map((message) => ({ status: "rejected", reason: new TypeError(message) })),
    );
    expect((await client.listSessions()).length).toBe(before);
    // A setting of the Copilot SDK's that turnloop does not implement is sent, not refused.
    const session = await client.createSession({ enableCitations: true } as never);
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a model the server does not have: the send rejects naming setModel, the app's cure", async () => {
    // Trial r3s46 F5: a 404 the model API itself answered named no cure; the app's is setModel.
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    fixture.onClose(() => client.stop());
    const session = await client.createSession();
    fixture.model.enqueue({
      status: 404,
      body: { error: { message: "The model `fake-model` does not exist", type: "not_found" } },
    });
    const failure = await session.sendAndWait({ prompt: "hi" }).catch((error: unknown) => error);
    expect(String(failure)).toBe(
      `Error: HTTP 404 from ${fixture.model.url}/v1/chat/completions (model "fake-model"): The model \`fake-model\` does not exist; the server has no model "fake-model": switch with session.setModel("<provider>:<model>")`,
    );
  });

  test("every call on a session whose server was killed -9 says the connection closed", async () => {
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    fixture.onClose(() => client.stop());
    const session = await client.createSession({});
    tcp.process.kill("SIGKILL");
    await tcp.exited;
    const calls = await Promise.allSettled([
      session.getMessages(),
      session.send("hello"),
      session.setModel("other-model"),
      session.abort(),
      session.getMode(),
    ]);
    const methods = [
      "session.getMessages",
      "session.send",
      "session.model.switchTo",
      "session.abort",
      "session.mode.get",
    ];
    expect(calls).toEqual(
      methods.map((method) => ({
        status: "rejected",
        reason: new Error(`the turnloop server connection closed before answering ${method}`),
      })),
    );
    // Surely after the client saw the end: the same words.
    await expect(session.send("again")).rejects.toThrow(
      "the turnloop server connection closed before answering session.send",
    );
  });

  test("a spawned server that refuses its settings at start says why in the error", async () => {
    // Round 3 session 35's trial: "connection closed before answering connect" was all an app saw.
    const client = fixture.client({ env: { ...fixture.env, TURNLOOP_CONTEXT_WINDOW: "abc" } });
    const error = await client.createSession({}).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    const [first, ...rest] = (error as Error).message.split("\n");
    expect(first).toBe("the turnloop server connection closed before answering connect");
    expect(rest.join("\n")).toMatch(/^server stderr: .*TURNLOOP_CONTEXT_WINDOW.*abc/s);
  });
});
