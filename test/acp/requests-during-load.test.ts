import { describe, expect, test } from "vitest";
import { ANSWER_TURN, ANSWERED_SESSION } from "../support/event-sequences.js";
import { ChildFixture } from "./child-process.js";
import {
  initializedAgent,
  type LineMessage,
  type RawAcpAgent,
  requestLine,
  storedSession,
  textPrompt,
} from "./raw-lines.js";

// A client may send requests about a session without waiting for the answer to its
// `session/load`: each waits for the load, then runs (src/session/opening-gate.ts). They were
// answered -32002 (session not found) while the load was still reading the log.

const fixture = ChildFixture.forEachTest();

/** Ids of the answers, in the order they were written. */
function answerIds(agent: RawAcpAgent): unknown[] {
  return agent.answers().map((answer) => answer.id);
}

function loadLine(id: number, sessionId: string): string {
  return requestLine(id, "session/load", { sessionId, cwd: fixture.cwd, mcpServers: [] });
}

/** The index of `message` among everything the agent wrote. */
const at = (agent: RawAcpAgent, message: LineMessage) => agent.messages.indexOf(message);

describe("turnloop acp: requests about a session sent with its session/load", () => {
  test("set_mode, prompt and a session/new in the load's write: all answered, after the load", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    fixture.server.enqueue({ text: "two" });
    const prompt = { sessionId, prompt: textPrompt("second") };
    agent.write(
      loadLine(2, sessionId) +
        requestLine(3, "session/set_mode", { sessionId, modeId: "ask" }) +
        requestLine(4, "session/prompt", prompt) +
        requestLine(5, "session/new", { cwd: fixture.cwd, mcpServers: [] }),
    );
    const [load, mode, answer, created] = await Promise.all(
      [2, 3, 4, 5].map((id) => agent.answer(id)),
    );
    expect([load?.error, mode?.error, answer?.error, created?.error]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(mode?.result).toEqual({});
    expect(answer?.result).toEqual({ stopReason: "end_turn" });
    expect(created?.result).toMatchObject({ sessionId: expect.any(String) });
    // The load answers first of the three about the session; the prompt's reply follows it.
    expect(answerIds(agent).filter((id) => id !== 5)).toEqual([1, 2, 3, 4]);
    const reply = agent.messages.find((message) =>
      JSON.stringify(message.params ?? null).includes('"text":"two"'),
    );
    expect(reply).toBeDefined();
    expect(at(agent, reply as LineMessage)).toBeGreaterThan(at(agent, load as LineMessage));
    const types = (await fixture.persisted(sessionId)).map((event) => event.type);
    expect(types).toEqual([...ANSWERED_SESSION, "session.resume", "user.message", ...ANSWER_TURN]);
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).toBe("");
  });

  test("a second load of the same session runs after the first: both answered", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    fixture.server.enqueue({ text: "two" });
    agent.write(
      loadLine(2, sessionId) +
        loadLine(3, sessionId) +
        requestLine(4, "session/prompt", { sessionId, prompt: textPrompt("second") }),
    );
    await agent.answer(4);
    expect(agent.answers().map((answer) => [answer.id, answer.error])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
      [4, undefined],
    ]);
    expect(agent.answers()[3]?.result).toEqual({ stopReason: "end_turn" });
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).toBe("");
  });

  test("a prompt and session/cancel sent with the load: the prompt runs and is cancelled", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    // The model holds its reply until its connection closes: only the cancel can end the prompt.
    fixture.server.enqueue({
      text: "held",
      pause: { afterEvents: 0, until: new Promise(() => {}) },
    });
    agent.write(
      loadLine(2, sessionId) +
        requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("second") }) +
        `${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`,
    );
    const answer = await agent.answer(3);
    expect(answer.result).toEqual({ stopReason: "cancelled" });
    expect(answerIds(agent)).toEqual([1, 2, 3]);
    const types = (await fixture.persisted(sessionId)).map((event) => event.type);
    // Cancelled before its model request was sent, or while it waited for the reply.
    const before = [...ANSWERED_SESSION, "session.resume", "user.message", "abort"];
    const during = [...before.slice(0, -1), "assistant.turn_start", "assistant.turn_end", "abort"];
    expect([before, during]).toContainEqual(types);
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).toBe("");
  });

  test("a prompt sent with a load that fails is answered with the load's error", async () => {
    const agent = await initializedAgent(fixture);
    const sessionId = "00000000-0000-4000-8000-000000000000";
    agent.write(
      loadLine(2, sessionId) +
        requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("hi") }),
    );
    const [load, prompt] = await Promise.all([agent.answer(2), agent.answer(3)]);
    expect(load.error).toMatchObject({ code: -32002, data: { sessionId } });
    expect(prompt.error).toEqual(load.error);
    expect(await agent.end()).toBe(0);
  });
});
