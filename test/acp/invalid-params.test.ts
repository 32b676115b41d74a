import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { initializedAgent, textPrompt } from "./raw-lines.js";

// Session 24's brief, item 1: bad params reached the editor as zod's raw issue tree
// (`{"code":-32602,"message":"Invalid params","data":{"_errors":[],"mcpServers":{"0":…}}}`),
// because ACP SDK 2.4.0 checks params inside its own handler. Every -32602 the agent sends now
// names the request, the field and what was expected, whoever found the problem (the SDK or
// turnloop), with `data` `{method, problems: [{path, message}]}`.

const fixture = ChildFixture.forEachTest();

test("every -32602 names the request, the field and what was expected, whoever found it", async () => {
  const agent = await initializedAgent(fixture);
  const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
  const { sessionId } = created.result as { sessionId: string };
  const refusals = [
    // The SDK's check: a stdio server without `name` (a union of three shapes).
    await agent.request(3, "session/new", {
      cwd: fixture.cwd,
      mcpServers: [{ command: "/bin/true", args: [], env: [] }],
    }),
    // The SDK's check: an http server without `headers`.
    await agent.request(4, "session/new", {
      cwd: fixture.cwd,
      mcpServers: [{ type: "http", name: "web", url: "http://127.0.0.1:9/mcp" }],
    }),
    // The SDK's check: wrong types, each said with the kind given, never the value.
    await agent.request(5, "session/new", { cwd: 3, mcpServers: "none" }),
    // The SDK's check: a content block of no known type.
    await agent.request(6, "session/prompt", { sessionId, prompt: [{ type: "video" }] }),
    // The SDK's check: a nested object of the picked alternative.
    await agent.request(7, "session/prompt", {
      sessionId,
      prompt: [{ type: "resource", resource: { text: "x" } }],
    }),
    // turnloop's own checks.
    await agent.request(8, "session/new", { cwd: "project", mcpServers: [] }),
    await agent.request(9, "session/set_mode", { sessionId, modeId: "yolo" }),
    await agent.request(10, "session/prompt", { sessionId, prompt: textPrompt("  ") }),
  ];
  expect(refusals.map((answer) => answer.error)).toEqual([
    {
      code: -32602,
      message: "session/new: mcpServers[0].name: expected a string",
      data: {
        method: "session/new",
        problems: [{ path: ["mcpServers", 0, "name"], message: "expected a string" }],
      },
    },
    {
      code: -32602,
      message: "session/new: mcpServers[0].headers: expected an array",
      data: {
        method: "session/new",
        problems: [{ path: ["mcpServers", 0, "headers"], message: "expected an array" }],
      },
    },
    {
      code: -32602,
      message:
        "session/new: cwd: expected a string, not a number; mcpServers: expected an array, not a string",
      data: {
        method: "session/new",
        problems: [
          { path: ["cwd"], message: "expected a string, not a number" },
          { path: ["mcpServers"], message: "expected an array, not a string" },
        ],
      },
    },
    {
      code: -32602,
      message:
        'session/prompt: prompt[0].type: expected one of "text", "image", "audio", "resource_link", "resource", not "video"',
      data: {
        method: "session/prompt",
        problems: [
          {
            path: ["prompt", 0, "type"],
            message:
              'expected one of "text", "image", "audio", "resource_link", "resource", not "video"',
          },
        ],
      },
    },
    {
      code: -32602,
      message: "session/prompt: prompt[0].resource.uri: expected a string",
      data: {
        method: "session/prompt",
        problems: [{ path: ["prompt", 0, "resource", "uri"], message: "expected a string" }],
      },
    },
    {
      code: -32602,
      message: 'session/new: cwd: expected an absolute path, not "project"',
      data: {
        method: "session/new",
        cwd: "project",
        problems: [{ path: ["cwd"], message: 'expected an absolute path, not "project"' }],
      },
    },
    {
      code: -32602,
      message: 'session/set_mode: modeId: expected ask, auto or autopilot, not "yolo"',
      data: {
        method: "session/set_mode",
        problems: [{ path: ["modeId"], message: 'expected ask, auto or autopilot, not "yolo"' }],
      },
    },
    {
      code: -32602,
      message:
        "session/prompt: prompt: expected at least one content block with text or an attachment; it is empty",
      data: {
        method: "session/prompt",
        problems: [
          {
            path: ["prompt"],
            message: "expected at least one content block with text or an attachment; it is empty",
          },
        ],
      },
    },
  ]);
  // Nothing was lost: the session still answers.
  fixture.server.enqueue({ text: "still here" });
  const answer = await agent.request(11, "session/prompt", { sessionId, prompt: textPrompt("hi") });
  expect(answer.result).toEqual({ stopReason: "end_turn" });
  expect(fixture.server.requests).toHaveLength(1);
  expect(await agent.end()).toBe(0);
});

test("a stdio MCP server with a bad env value is told of that value only (trial 37 F9)", async () => {
  const agent = await initializedAgent(fixture);
  const answer = await agent.request(2, "session/new", {
    cwd: fixture.cwd,
    mcpServers: [{ name: "x", command: "node", args: [], env: [{ name: "SECRET", value: 5 }] }],
  });
  expect(answer.error).toEqual({
    code: -32602,
    message: "session/new: mcpServers[0].env[0].value: expected a string, not a number",
    data: {
      method: "session/new",
      problems: [
        { path: ["mcpServers", 0, "env", 0, "value"], message: "expected a string, not a number" },
      ],
    },
  });
});
