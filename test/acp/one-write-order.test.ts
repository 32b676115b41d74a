import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ANSWERED_SESSION } from "../support/event-sequences.js";
import { gate } from "../support/gate.js";
import { ChildFixture } from "./child-process.js";
import {
  initializedAgent,
  RawAcpAgent,
  requestLine,
  storedSession,
  textPrompt,
} from "./raw-lines.js";

// Requests a client writes together (one write, read in one chunk of stdin) start in the order it
// sent them. The ACP SDK's connection tries its handlers in the order they were registered, one
// await each, so of two requests read together the one registered first started first: a
// `session/prompt` then a `session/close` of its session ran the close first, and the prompt was
// refused as if the session were not open (-32002); a `session/prompt` then a `session/load` of the
// running session loaded it first and answered the load. acp/framing.ts now hands a request on
// only once the one before it has reached its handler.

const fixture = ChildFixture.forEachTest();

/** The types of the events `sessionId`'s log holds, in order. */
async function storedTypes(sessionId: string): Promise<string[]> {
  return (await fixture.persisted(sessionId)).map((event) => event.type);
}

/** A raw agent, initialized, with a session of the fixture's cwd: the agent and the session id. */
async function agentWithNewSession(agent?: RawAcpAgent) {
  const started = agent ?? (await initializedAgent(fixture));
  const created = await started.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
  return { agent: started, sessionId: (created.result as { sessionId: string }).sessionId };
}

/** The ids of the answers written so far among `ids`, in the order they were written. */
function answerOrder(agent: RawAcpAgent, ids: number[]): unknown[] {
  return agent
    .answers()
    .map((answer) => answer.id)
    .filter((id) => ids.includes(Number(id)));
}

describe("turnloop acp: requests written in one write start in the order they were sent", () => {
  test("session/prompt then session/close: the prompt starts, the close cancels it", async () => {
    const { agent, sessionId } = await agentWithNewSession();
    // The model answers only once the test is over: the prompt is still running at the close.
    const never = gate();
    fixture.server.enqueue({ text: "late", pause: { afterEvents: 0, until: never.opened } });
    agent.write(
      requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("first") }) +
        requestLine(4, "session/close", { sessionId }),
    );
    const answers = await Promise.all([3, 4].map((id) => agent.answer(id)));
    never.open();
    expect(answers.map(({ result, error }) => result ?? error)).toEqual([
      { stopReason: "cancelled" },
      {},
    ]);
    expect(answerOrder(agent, [3, 4])).toEqual([3, 4]);
    // The close is handled on the event loop's next turn, before the prompt's first write has
    // completed: the prompt is recorded and cancelled before any model request.
    expect(await storedTypes(sessionId)).toEqual(["session.start", "user.message", "abort"]);
    expect(fixture.server.requests).toEqual([]);
    expect(await agent.end()).toBe(0);
  });

  test("session/prompt then session/load of its session: the load is refused while the prompt runs", async () => {
    const { agent, sessionId } = await agentWithNewSession();
    fixture.server.enqueue({ text: "answer" });
    agent.write(
      requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("first") }) +
        requestLine(4, "session/load", { sessionId, cwd: fixture.cwd, mcpServers: [] }),
    );
    const [prompted, loaded] = await Promise.all([3, 4].map((id) => agent.answer(id)));
    expect(prompted?.result).toEqual({ stopReason: "end_turn" });
    expect(loaded?.error).toEqual({
      code: -32600,
      message: `Session ${sessionId} is running a prompt: it stays open as it is; wait for the prompt's answer (or send session/cancel), then send session/load again.`,
      data: { sessionId },
    });
    expect(await storedTypes(sessionId)).toEqual(ANSWERED_SESSION);
    expect(await agent.end()).toBe(0);
  });

  test("session/load then session/prompt: the prompt runs in the loaded session, answered after the load", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    fixture.server.enqueue({ text: "two" });
    agent.write(
      requestLine(2, "session/load", { sessionId, cwd: fixture.cwd, mcpServers: [] }) +
        requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("second") }),
    );
    const answers = await Promise.all([2, 3].map((id) => agent.answer(id)));
    expect(answers.map((answer) => answer.error)).toEqual([undefined, undefined]);
    expect(answers[1]?.result).toEqual({ stopReason: "end_turn" });
    expect(answerOrder(agent, [2, 3])).toEqual([2, 3]);
    const prompts = (await fixture.persisted(sessionId)).flatMap((event) =>
      event.type === "user.message" ? [event.data.content] : [],
    );
    expect(prompts).toEqual(["first", "second"]);
    expect(await agent.end()).toBe(0);
  });

  test("case 26, two prompts written together while one runs: both refused at once, in order; the first runs on", async () => {
    const { agent, sessionId } = await agentWithNewSession();
    const refused = gate();
    fixture.server.enqueue(
      {
        text: Array.from({ length: 30 }, () => "A"),
        pause: { afterEvents: 3, until: refused.opened },
      },
      { text: "D" },
    );
    agent.write(requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("A") }));
    await agent.message((message) => JSON.stringify(message).includes('"agent_message_chunk"'));
    agent.write(
      requestLine(4, "session/prompt", { sessionId, prompt: textPrompt("B") }) +
        requestLine(5, "session/prompt", { sessionId, prompt: textPrompt("C") }),
    );
    const refusals = await Promise.all([4, 5].map((id) => agent.answer(id)));
    const busy = {
      code: -32600,
      message: `Session ${sessionId} is already running a prompt; wait for its answer or send session/cancel first.`,
    };
    expect(refusals.map((answer) => answer.error)).toEqual([busy, busy]);
    expect(answerOrder(agent, [3, 4, 5])).toEqual([4, 5]);
    refused.open();
    expect((await agent.answer(3)).result).toEqual({ stopReason: "end_turn" });
    const next = await agent.request(6, "session/prompt", { sessionId, prompt: textPrompt("D") });
    expect(next.result).toEqual({ stopReason: "end_turn" });
    const prompts = (await fixture.persisted(sessionId)).flatMap((event) =>
      event.type === "user.message" ? [event.data.content] : [],
    );
    expect(prompts).toEqual(["A", "D"]);
    expect(fixture.server.requests).toHaveLength(2);
    expect(await agent.end()).toBe(0);
  });

  // The first change to autopilot probes bubblewrap (a child process); a `bwrap` held at a gate
  // keeps that probe going until the request written after the two has been answered: every
  // request before it has then reached its handler (acp/framing.ts), the prompt included.
  test.for(["set_mode first", "prompt first"] as const)(
    "session/set_mode autopilot and session/prompt, %s, with a slow bwrap: the prompt runs in the mode the order gives",
    async (order) => {
      const bin = join(fixture.home, "slow-bin");
      const started = join(fixture.home, "bwrap-started");
      const go = join(fixture.home, "bwrap-go");
      await mkdir(bin, { recursive: true });
      await writeFile(
        join(bin, "bwrap"),
        `#!/bin/sh\n: > '${started}'\nwhile [ ! -e '${go}' ]; do sleep 0.05; done\nexec /usr/bin/bwrap "$@"\n`,
      );
      await chmod(join(bin, "bwrap"), 0o755);
      const env = fixture.environment({ PATH: `${bin}:${process.env.PATH ?? ""}` });
      const raw = new RawAcpAgent(env, fixture.cwd);
      await raw.request(1, "initialize", { protocolVersion: 1 });
      const { agent, sessionId } = await agentWithNewSession(raw);
      // Autopilot nudges the model after each answer without task_complete: every request gets one.
      fixture.server.setResponder(() => ({ text: "done" }));
      const setMode = requestLine(3, "session/set_mode", { sessionId, modeId: "autopilot" });
      const prompt = requestLine(4, "session/prompt", { sessionId, prompt: textPrompt("go") });
      // A method no agent has: answered -32601 at once, once the two before it reached their handlers.
      const after = requestLine(5, "_turnloop_test/unknown", {});
      agent.write((order === "set_mode first" ? setMode + prompt : prompt + setMode) + after);
      expect((await agent.answer(5)).error).toMatchObject({ code: -32601 });
      await expect.poll(() => existsSync(started)).toBe(true);
      if (order === "set_mode first") {
        // The probe holds the mode's change, and the prompt waits for the mode.
        expect(answerOrder(agent, [3, 4])).toEqual([]);
      }
      await writeFile(go, "");
      const answers = await Promise.all([3, 4].map((id) => agent.answer(id)));
      expect(answers.map((answer) => answer.error)).toEqual([undefined, undefined]);
      // Autopilot offers the model task_complete; ask does not.
      const offered = JSON.stringify(fixture.server.requests[0]?.body).includes("task_complete");
      expect(offered).toBe(order === "set_mode first");
      if (order === "set_mode first") {
        expect(answerOrder(agent, [3, 4])).toEqual([3, 4]);
      }
      expect(await agent.end()).toBe(0);
    },
  );
});
