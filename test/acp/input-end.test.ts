import { describe, expect, test } from "vitest";
import { CANCELLED_AT_QUESTION, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { ChildFixture } from "./child-process.js";
import { RawAcpAgent } from "./raw-lines.js";

// A request followed at once by the end of stdin is answered before `turnloop acp` exits
// (src/acp/input-end.ts): `printf '<initialize>\n<session/new>\n' | turnloop acp` once answered
// `initialize` only. Prompts are cancelled, as closing stdin cancels (README).

const fixture = ChildFixture.forEachTest();

function line(id: number, method: string, params: unknown): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
}

const INITIALIZE = line(1, "initialize", { protocolVersion: 1 });

describe("turnloop acp: the end of stdin right after a request", () => {
  test("initialize and session/new in one write, then the end: both answered, exit 0", async () => {
    const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
    const input = INITIALIZE + line(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    expect(await agent.writeAndEnd(input)).toBe(0);
    const answers = agent.answers();
    expect(answers.map((answer) => [answer.id, Object.keys(answer).sort()])).toEqual([
      [1, ["id", "jsonrpc", "result"]],
      [2, ["id", "jsonrpc", "result"]],
    ]);
    expect(answers[1]?.result).toMatchObject({ sessionId: expect.any(String) });
    expect(agent.stderr).toBe("");
  });

  test("a prompt, then the end: answered cancelled, its log ended as a cancel ends it", async () => {
    const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
    await agent.request(1, "initialize", { protocolVersion: 1 });
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    // The model holds its reply until its connection closes: only the cancel can end the prompt.
    fixture.server.enqueue({
      text: "held",
      pause: { afterEvents: 0, until: new Promise(() => {}) },
    });
    const prompt = line(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(await agent.writeAndEnd(prompt)).toBe(0);
    expect(agent.answers().map((answer) => [answer.id, answer.result])).toEqual([
      [1, expect.any(Object)],
      [2, expect.any(Object)],
      [3, { stopReason: "cancelled" }],
    ]);
    const types = (await fixture.persisted(sessionId)).map((event) => event.type);
    // Cancelled before its model request was sent, or while it waited for the reply.
    const before = ["session.start", "user.message", "abort"];
    const during = [...before.slice(0, 2), "assistant.turn_start", "assistant.turn_end", "abort"];
    expect([before, during]).toContainEqual(types);
    expect(agent.stderr).toBe("");
  });

  test("a permission question left unanswered at the end: the prompt is cancelled, exit 0", async () => {
    const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
    await agent.request(1, "initialize", { protocolVersion: 1 });
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    fixture.server.enqueue({
      toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"touch made-here"}' }],
    });
    agent.write(line(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }));
    await agent.message((message) => message.method === "session/request_permission");
    expect(await agent.end()).toBe(0);
    expect(agent.answers().find((answer) => answer.id === 3)?.result).toEqual({
      stopReason: "cancelled",
    });
    const events = await fixture.persisted(sessionId);
    expect(events.map((event) => event.type)).toEqual([
      ...UNTIL_TOOL_START.slice(0, -1),
      ...CANCELLED_AT_QUESTION,
    ]);
    expect(events.find((event) => event.type === "permission.completed")?.data).toMatchObject({
      decision: "cancelled",
    });
    expect(agent.stderr).toBe("");
  });
});
