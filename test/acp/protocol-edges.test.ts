import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { RawAcpAgent } from "./raw-lines.js";

// Issue 17: JSON-RPC edges of the SDK's connection layer, over the built CLI as a child process.

const fixture = ChildFixture.forEachTest();

describe("ACP protocol edges", () => {
  test("a wrong jsonrpc version and an id-only message are answered -32600 with their ids", async () => {
    const agent = fixture.startAgent();
    // Before initialize too: the edges are answered whatever the connection's state.
    agent.writeRaw(
      '{"jsonrpc":"1.0","id":"v1","method":"initialize","params":{"protocolVersion":1}}\n',
    );
    await agent.initialize();
    agent.writeRaw('{"jsonrpc":"2.0","id":41}\n');
    agent.writeRaw('{"id":"only-id"}\n');
    agent.writeRaw('{"id":42,"method":"session/list","params":{}}\n');
    agent.writeRaw('{"jsonrpc":"2.0","id":43,"method":7}\n');
    agent.writeRaw('{"jsonrpc":"2.0","id":null}\n');
    // A well-formed request after them is still served.
    const listed = await agent.client.request(acp.methods.agent.session.list, {});
    expect(listed).toEqual({ sessions: [] });
    // The six answers are not ordered against the list's answer: wait for them, not for a while.
    await agent.waitUntil(() => errorAnswers(agent.messages()).length >= 6, "six error answers");
    expect(errorAnswers(agent.messages())).toEqual([
      {
        jsonrpc: "2.0",
        id: "v1",
        error: { code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0", not "1.0"' },
      },
      {
        jsonrpc: "2.0",
        id: 41,
        error: {
          code: -32600,
          message:
            'Invalid request: a message with an "id" needs a "method" (a request) or a "result" or "error"',
        },
      },
      {
        jsonrpc: "2.0",
        id: "only-id",
        error: {
          code: -32600,
          message:
            'Invalid request: a message with an "id" needs a "method" (a request) or a "result" or "error"',
        },
      },
      {
        jsonrpc: "2.0",
        id: 42,
        error: { code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0", not null' },
      },
      {
        jsonrpc: "2.0",
        id: 43,
        error: { code: -32600, message: 'Invalid request: "method" must be a string' },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message:
            'Invalid request: a message with an "id" needs a "method" (a request) or a "result" or "error"',
        },
      },
    ]);
    expect(agent.stdoutLines.every((line) => JSON.parse(line).jsonrpc === "2.0")).toBe(true);
    expect(await agent.end()).toBe(0);
  });

  // A fresh user's trial (#10): the SDK's answer read `"Method not found": nope`, quotes and all.
  test("a method no handler takes is answered -32601 `Method not found: <method>` with data.method", async () => {
    const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
    await agent.request(1, "initialize", { protocolVersion: 1 });
    // An unknown name, and one the SDK knows that turnloop does not serve.
    const unknown = await agent.request(2, "nope", {});
    const fork = await agent.request(3, "session/fork", { sessionId: "x", cwd: fixture.cwd });
    expect([unknown.error, fork.error]).toEqual([
      { code: -32601, message: "Method not found: nope", data: { method: "nope" } },
      {
        code: -32601,
        message: "Method not found: session/fork",
        data: { method: "session/fork" },
      },
    ]);
    // The connection serves on.
    expect((await agent.request(4, "session/list", {})).result).toEqual({ sessions: [] });
    expect(await agent.end()).toBe(0);
  });
});

function errorAnswers(messages: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return messages.filter((message) => "error" in message);
}
