import { describe, expect, test } from "vitest";
import { fixtureForFile } from "../sdk/support.js";
import { spawnServer } from "./raw-peer.js";

/**
 * Round 3 session 22, lane sdk: bad params of every method are answered `-32602` in plain words,
 * the field, what it must be and what was given (was zod's "✖ Invalid input: expected string,
 * received number → at model"), and the server goes on.
 */
const fixture = fixtureForFile();

describe("bad params over raw JSON-RPC", () => {
  test("each method names the field, what it must be and what was given", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const cases: Array<[method: string, params: unknown, message: string]> = [
      [
        "session.create",
        { model: 3, systemMessage: "be brief", availableTools: "bash" },
        'session.create: model must be a string, not 3; systemMessage must be an object, not "be brief"; availableTools must be an array, not "bash"',
      ],
      [
        "session.create",
        { provider: { baseUrl: "" }, tools: [{ name: "a b" }], infiniteSessions: { enabled: 1 } },
        `session.create: provider.baseUrl must be a non-empty string, not ""; tools[0].name must be a name of 1-64 letters, digits, '_' or '-', not "a b"; infiniteSessions.enabled must be true or false, not 1`,
      ],
      [
        "session.create",
        ["openai-chat:x"],
        'session.create: the params must be an object, not ["openai-chat:x"]',
      ],
      [
        "session.resume",
        { sessionId: 7, mode: "fast" },
        'session.resume: mode must be one of "interactive", "plan", "autopilot", "shell", not "fast"; sessionId must be a string, not 7',
      ],
      [
        "session.send",
        { sessionId: "abc", prompt: 3, attachments: [{ type: "url" }] },
        'session.send: prompt must be a string, not 3; attachments[0].type must be one of "file", "directory", "selection", "blob", not "url"',
      ],
      ["session.send", { prompt: "hi" }, "session.send: sessionId is missing: it must be a string"],
      [
        "session.model.switchTo",
        { sessionId: "abc", modelId: 5 },
        "session.model.switchTo: modelId must be a string, not 5",
      ],
      [
        "session.mode.set",
        { sessionId: "abc", mode: "fast" },
        'session.mode.set: mode must be one of "interactive", "plan", "autopilot", "shell", not "fast"',
      ],
      [
        "session.permissions.handlePendingPermissionRequest",
        { sessionId: "abc", requestId: "r1", result: "approve" },
        'session.permissions.handlePendingPermissionRequest: result must be an object, not "approve"',
      ],
      [
        "session.tools.handlePendingToolCall",
        { sessionId: "abc", requestId: "r1", result: { text: "done" } },
        'session.tools.handlePendingToolCall: result must be a string or an object with textResultForLlm (a string), not {"text":"done"}',
      ],
      ["session.abort", undefined, "session.abort: the params must be an object; none were given"],
      ["session.list", { filter: 3 }, "session.list: filter must be an object, not 3"],
      ["ping", { message: 1 }, "ping: message must be a string, not 1"],
    ];
    const answers = [];
    for (const [method, params] of cases) {
      answers.push((await peer.request(method, params)).error);
    }
    expect(answers).toEqual(cases.map(([, , message]) => ({ code: -32602, message })));
    const ping = await peer.request("ping", { message: "still here" });
    expect(ping.result).toMatchObject({ message: "pong: still here" });
    expect(peer.garbage).toBe("");
    child.stdin.end();
    expect(await exit).toBe(0);
  });
});

describe("settings turnloop does not read", () => {
  test("are accepted and said once per open, in a session.warning the app receives and the log keeps", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    // What the Copilot SDK sends on every create asks for nothing turnloop does not do.
    const defaults = {
      toolFilterPrecedence: "excluded",
      includeSubAgentStreamingEvents: true,
      envValueMode: "direct",
      requestElicitation: false,
      requestExitPlanMode: false,
    };
    const quiet = await peer.request("session.create", defaults);
    const quietId = (quiet.result as { sessionId: string }).sessionId;
    const settings = { ...defaults, enableCitations: true, memory: { enabled: true }, modle: "x" };
    const created = await peer.request("session.create", settings);
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const message =
      'turnloop does not implement the Copilot SDK\'s settings enableCitations and memory and ignores them; turnloop ignores the unknown setting "modle" (did you mean "model"?)';
    const resumed = await peer.request("session.resume", { sessionId, temperature: 0.2 });
    expect(resumed.error).toBeUndefined();
    const resumeWarning = 'session.resume: turnloop ignores the unknown setting "temperature"';
    await peer.waitFor(
      (sent) =>
        sent.method === "session.event" &&
        JSON.stringify(sent.params).includes(JSON.stringify(resumeWarning)),
    );
    const warningsOf = (id: string) =>
      peer.messages.flatMap((sent) => {
        const params = sent.params as { sessionId: string; event: { type: string; data: unknown } };
        return sent.method === "session.event" &&
          params.sessionId === id &&
          params.event.type === "session.warning"
          ? [params.event.data]
          : [];
      });
    const expected = [
      { warningType: "settings_ignored", message: `session.create: ${message}` },
      { warningType: "settings_ignored", message: resumeWarning },
    ];
    expect(warningsOf(sessionId)).toEqual(expected);
    expect(warningsOf(quietId)).toEqual([]);
    const stored = await peer.request("session.getMessages", { sessionId });
    const { events } = stored.result as { events: Array<{ type: string; data: unknown }> };
    expect(
      events.filter((event) => event.type === "session.warning").map((event) => event.data),
    ).toEqual(expected);
    child.stdin.end();
    expect(await exit).toBe(0);
  });
});
