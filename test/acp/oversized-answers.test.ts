import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { ANSWER_TURN, TOOL_TURN } from "../support/event-sequences.js";
import { ChildFixture } from "./child-process.js";
import { type LineMessage, RawAcpAgent } from "./raw-lines.js";

// The client's answer to a request of ours over TURNLOOP_MAX_MESSAGE_BYTES fails that request
// (src/acp/framing.ts `answerTooLarge`): it was answered as if it were a request ("Message too
// large" sent to the client, with the id of our own request), and our request waited forever.

const fixture = ChildFixture.forEachTest();
const LIMIT = 64 * 1024;

function line(message: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
}

/** An agent with a 64 KiB limit, initialized with `capabilities`, and a new session. */
async function agentWithSession(capabilities: unknown): Promise<[RawAcpAgent, string]> {
  const environment = fixture.environment({ TURNLOOP_MAX_MESSAGE_BYTES: String(LIMIT) });
  const agent = new RawAcpAgent(environment, fixture.cwd);
  agent.write(
    line({
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: capabilities },
    }),
  );
  await agent.answer(1);
  const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
  return [agent, (created.result as { sessionId: string }).sessionId];
}

/** Waits for the agent's request `method`, then answers it with `result` on one line. */
async function answerWith(agent: RawAcpAgent, method: string, result: unknown): Promise<string> {
  const asked = await agent.message((message) => message.method === method);
  const answer = line({ id: asked.id, result });
  agent.write(answer);
  return answer;
}

/** The messages the agent wrote that are not session updates, as `[id, method]`. */
function exchanged(agent: RawAcpAgent): unknown[] {
  return agent.messages
    .filter((message) => message.method !== "session/update")
    .map((message: LineMessage) => [message.id, message.method ?? "answer"]);
}

const reason = (bytes: number) =>
  `the client's answer was ${bytes} bytes; the limit is ${LIMIT} bytes per line (TURNLOOP_MAX_MESSAGE_BYTES)`;

function completion(events: SessionEvent[]): unknown {
  return events.find((event) => event.type === "tool.execution_complete")?.data;
}

describe("turnloop acp: an answer of the client's over the size limit", () => {
  test("fs/read_text_file: the view call fails with the sizes, the prompt goes on, nothing is sent back", async () => {
    await writeFile(join(fixture.cwd, "notes.txt"), "small on disk\n");
    const [agent, sessionId] = await agentWithSession({ fs: { readTextFile: true } });
    fixture.server.enqueue(
      { toolCalls: [{ id: "call_V", name: "view", arguments: '{"path":"notes.txt"}' }] },
      { text: "too big" },
    );
    agent.write(
      line({
        id: 3,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "read" }] },
      }),
    );
    const sent = await answerWith(agent, "fs/read_text_file", { content: "x".repeat(2 * LIMIT) });
    const bytes = Buffer.byteLength(sent) - 1;
    expect((await agent.answer(3)).result).toEqual({ stopReason: "end_turn" });
    expect(exchanged(agent)).toEqual([
      [1, "answer"],
      [2, "answer"],
      [0, "fs/read_text_file"],
      [3, "answer"],
    ]);
    const events = await fixture.persisted(sessionId);
    expect(events.map((event) => event.type)).toEqual([
      "session.start",
      "user.message",
      ...TOOL_TURN,
      ...ANSWER_TURN,
    ]);
    expect(completion(events)).toMatchObject({
      success: false,
      error: { code: "failed", message: `view failed: ${reason(bytes)}` },
    });
    // The model hears it in the call's result.
    expect(JSON.stringify(fixture.server.requests[1]?.body)).toContain(reason(bytes));
    expect(agent.stderr).toBe(`turnloop: ${reason(bytes)}; request 0 fails\n`);
    expect(await agent.end()).toBe(0);
  });

  test("session/request_permission: the call fails with the sizes, the prompt goes on", async () => {
    const [agent, sessionId] = await agentWithSession({});
    agent.write(line({ id: 3, method: "session/set_mode", params: { sessionId, modeId: "ask" } }));
    await agent.answer(3);
    fixture.server.enqueue(
      { toolCalls: [{ id: "call_B", name: "bash", arguments: '{"command":"touch made"}' }] },
      { text: "not run" },
    );
    agent.write(
      line({
        id: 4,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "run" }] },
      }),
    );
    const outcome = { outcome: "selected", optionId: "allow_once" };
    const sent = await answerWith(agent, "session/request_permission", {
      outcome,
      _meta: { padding: "p".repeat(2 * LIMIT) },
    });
    const bytes = Buffer.byteLength(sent) - 1;
    expect((await agent.answer(4)).result).toEqual({ stopReason: "end_turn" });
    expect(exchanged(agent)).toEqual([
      [1, "answer"],
      [2, "answer"],
      [3, "answer"],
      [0, "session/request_permission"],
      [4, "answer"],
    ]);
    const events = await fixture.persisted(sessionId);
    expect(completion(events)).toMatchObject({
      success: false,
      error: {
        code: "denied",
        message: `Permission denied for 'bash': the permission request failed: ${reason(bytes)}`,
      },
    });
    expect(JSON.stringify(fixture.server.requests[1]?.body)).toContain(reason(bytes));
    expect(await agent.end()).toBe(0);
  });
});
