import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { gate } from "../support/gate.js";
import { ChildFixture } from "./child-process.js";
import {
  initializedAgent,
  RawAcpAgent,
  requestLine,
  storedSession,
  textPrompt,
} from "./raw-lines.js";

// A fresh user's trial (session 16, #21): two `session/load` (or `session/resume`) of one session
// sent without waiting, in an untrusted project, and the agent answered neither, nor anything
// after. It had crashed: the first open's announcement (scheduled after its answer) recorded the
// project's warning in a log the second open had already closed. Every pair of requests about one
// session is now answered, and the connection serves the requests after them.

const fixture = ChildFixture.forEachTest();

/** An untrusted project (a held config key): opening a session records a warning in its log. */
async function untrustedProject(place: ChildFixture = fixture): Promise<void> {
  await mkdir(join(place.cwd, ".turnloop"));
  await writeFile(
    join(place.cwd, ".turnloop", "config.json"),
    JSON.stringify({ permissions: { allow: ["bash(echo *)"] } }),
  );
}

/** The request line of `method` about `sessionId` (a session of `place`), with the params it needs. */
function about(id: number, method: string, sessionId: string, place = fixture): string {
  const open = { sessionId, cwd: place.cwd, mcpServers: [] };
  switch (method) {
    case "session/load":
    case "session/resume":
      return requestLine(id, method, open);
    case "session/set_mode":
      return requestLine(id, method, { sessionId, modeId: "auto" });
    case "session/close":
      return requestLine(id, method, { sessionId });
    case "session/prompt":
      return requestLine(id, method, { sessionId, prompt: textPrompt("again") });
    default:
      throw new Error(`no params for ${method}`);
  }
}

/** The errors of the answers to `ids` (`undefined` for a result), once all are written. */
async function errors(agent: RawAcpAgent, ids: readonly number[]): Promise<unknown[]> {
  const answers = await Promise.all(ids.map((id) => agent.answer(id)));
  return answers.map((answer) => answer.error);
}

/** `session/list` answers: the connection still serves. */
async function stillServes(agent: RawAcpAgent, id: number): Promise<void> {
  const list = await agent.request(id, "session/list", {});
  expect(list.result).toMatchObject({ sessions: expect.any(Array) });
}

/**
 * `count` sessions of `place`'s cwd, each with one prompt answered "one", made by one agent that
 * has then exited 0 (asserted), as raw-lines.ts `storedSession` makes one. @returns their ids.
 */
async function storedSessions(place: ChildFixture, count: number): Promise<string[]> {
  const agent = place.startAgent();
  await agent.initialize();
  const sessionIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const sessionId = await agent.newSession();
    place.server.enqueue({ text: "one" });
    expect(await agent.prompt(sessionId, "first")).toEqual({ stopReason: "end_turn" });
    sessionIds.push(sessionId);
  }
  expect(await agent.end()).toBe(0);
  return sessionIds;
}

describe("turnloop acp: two requests about one session, sent without waiting, pair by pair", () => {
  const pairs: Array<[string, string]> = [
    ["session/load", "session/load"],
    ["session/resume", "session/resume"],
    ["session/load", "session/resume"],
    ["session/resume", "session/load"],
    ["session/load", "session/set_mode"],
    ["session/load", "session/prompt"],
    ["session/load", "session/close"],
  ];
  // One untrusted project for the table, with a stored session for each row (made by one agent,
  // not one a row): each row's agent opens only its own.
  let table: ChildFixture;
  let stored: string[];
  beforeAll(async () => {
    table = await ChildFixture.start();
    await untrustedProject(table);
    stored = await storedSessions(table, pairs.length);
  }, 60_000);
  afterAll(() => table?.close());

  test.each(pairs.map(([first, second], row) => [first, second, row] as const))(
    "%s then %s: both answered, and the connection serves on",
    async (first, second, row) => {
      const sessionId = stored[row] ?? "";
      const agent = await initializedAgent(table);
      table.server.enqueue({ text: "two" });
      agent.write(about(2, first, sessionId, table) + about(3, second, sessionId, table));
      expect(await errors(agent, [2, 3])).toEqual([undefined, undefined]);
      await stillServes(agent, 4);
      expect(await agent.end()).toBe(0);
      expect(agent.stderr).not.toContain("could not announce");
    },
  );
});

describe("turnloop acp: two requests about one session, sent without waiting", () => {
  test("session/new, then two loads and a resume of it: all answered, and it still prompts", async () => {
    await untrustedProject();
    const agent = await initializedAgent(fixture);
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    agent.write(
      about(3, "session/load", sessionId) +
        about(4, "session/load", sessionId) +
        about(5, "session/resume", sessionId),
    );
    expect(await errors(agent, [3, 4, 5])).toEqual([undefined, undefined, undefined]);
    fixture.server.enqueue({ text: "two" });
    const answer = await agent.request(6, "session/prompt", {
      sessionId,
      prompt: textPrompt("hi"),
    });
    expect(answer.result).toEqual({ stopReason: "end_turn" });
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).not.toContain("could not announce");
  });

  test("a load with another folder's cwd is refused and leaves the open session as it was", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    await agent.request(2, "session/resume", { sessionId, cwd: fixture.cwd, mcpServers: [] });
    const elsewhere = await mkdtemp(join(tmpdir(), "turnloop-acp-elsewhere-"));
    onTestFinished(() => rm(elsewhere, { recursive: true, force: true }));
    const load = { sessionId, cwd: elsewhere, mcpServers: [] };
    agent.write(requestLine(3, "session/load", load) + about(4, "session/set_mode", sessionId));
    const [refused, mode] = await Promise.all([agent.answer(3), agent.answer(4)]);
    expect(refused.error).toMatchObject({ code: -32602, data: { cwd: elsewhere } });
    expect(mode.error).toBeUndefined();
    fixture.server.enqueue({ text: "two" });
    const answer = await agent.request(5, "session/prompt", {
      sessionId,
      prompt: textPrompt("hi"),
    });
    expect(answer.result).toEqual({ stopReason: "end_turn" });
    const types = (await fixture.persisted(sessionId)).map((event) => event.type);
    expect(types.filter((type) => type === "session.resume")).toHaveLength(1);
    expect(await agent.end()).toBe(0);
  });

  test("session/close then session/load: both answered, and the loaded session prompts", async () => {
    await untrustedProject();
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    await agent.request(2, "session/resume", { sessionId, cwd: fixture.cwd, mcpServers: [] });
    agent.write(about(3, "session/close", sessionId) + about(4, "session/load", sessionId));
    expect(await errors(agent, [3, 4])).toEqual([undefined, undefined]);
    fixture.server.enqueue({ text: "two" });
    const answer = await agent.request(5, "session/prompt", {
      sessionId,
      prompt: textPrompt("hi"),
    });
    expect(answer.result).toEqual({ stopReason: "end_turn" });
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).not.toContain("could not announce");
  });

  test("two resumes, then the end of stdin: both answered before the agent exits", async () => {
    await untrustedProject();
    const sessionId = await storedSession(fixture);
    const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
    const code = await agent.writeAndEnd(
      requestLine(1, "initialize", { protocolVersion: 1 }) +
        about(2, "session/resume", sessionId) +
        about(3, "session/resume", sessionId),
    );
    expect(code).toBe(0);
    expect(agent.stderr).not.toContain("could not announce");
    expect(agent.answers().map((answer) => [answer.id, answer.error])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
    ]);
  });
});

// The same trial (#22): a `session/load` of a session whose prompt was running closed the session
// to reopen it, which cancelled the prompt without a word, and a second prompt sent meanwhile
// then ran on the reopened session instead of being refused.
describe("turnloop acp: opening a session whose prompt is running", () => {
  test.each(["session/load", "session/resume"])(
    "%s is refused, the prompt goes on, and a second prompt is still refused",
    async (method) => {
      const agent = await initializedAgent(fixture);
      const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
      const { sessionId } = created.result as { sessionId: string };
      const release = gate();
      fixture.server.enqueue({
        text: Array.from({ length: 10 }, () => "A"),
        pause: { afterEvents: 3, until: release.opened },
      });
      agent.write(requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("first") }));
      // The prompt runs: its answer has begun to stream (a gate on the output, not on time).
      await agent.message((message) => JSON.stringify(message).includes('"agent_message_chunk"'));
      agent.write(about(4, "session/prompt", sessionId) + about(5, method, sessionId));
      const [second, open] = await Promise.all([agent.answer(4), agent.answer(5)]);
      expect(second.error).toMatchObject({
        code: -32600,
        message: `Session ${sessionId} is already running a prompt; wait for its answer or send session/cancel first.`,
      });
      expect(open.error).toEqual({
        code: -32600,
        message:
          `Session ${sessionId} is running a prompt: it stays open as it is; wait for the ` +
          `prompt's answer (or send session/cancel), then send ${method} again.`,
        data: { sessionId },
      });
      release.open();
      expect((await agent.answer(3)).result).toEqual({ stopReason: "end_turn" });
      const types = (await fixture.persisted(sessionId)).map((event) => event.type);
      expect(types.filter((type) => type === "user.message" || type === "abort")).toEqual([
        "user.message",
      ]);
      expect(types).not.toContain("session.resume");
      expect(await agent.end()).toBe(0);
      expect(agent.stderr).not.toContain("could not announce");
    },
  );

  test("load, prompt, load sent together: all answered, and the second load does not cancel the prompt", async () => {
    const sessionId = await storedSession(fixture);
    const agent = await initializedAgent(fixture);
    fixture.server.enqueue({ text: "two" });
    agent.write(
      about(2, "session/load", sessionId) +
        about(3, "session/prompt", sessionId) +
        about(4, "session/load", sessionId),
    );
    const [first, prompt, second] = await Promise.all([
      agent.answer(2),
      agent.answer(3),
      agent.answer(4),
    ]);
    expect(first.error).toBeUndefined();
    expect(prompt.result).toEqual({ stopReason: "end_turn" });
    // Served before the prompt started, or refused while it ran: answered either way.
    expect([undefined, -32600]).toContain((second.error as { code?: number } | undefined)?.code);
    const types = (await fixture.persisted(sessionId)).map((event) => event.type);
    expect(types).not.toContain("abort");
    await stillServes(agent, 5);
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).not.toContain("could not announce");
  });

  test("a prompt and a load of the open session sent together: the prompt is not cancelled", async () => {
    const agent = await initializedAgent(fixture);
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    fixture.server.enqueue({ text: "answer" });
    agent.write(about(3, "session/prompt", sessionId) + about(4, "session/load", sessionId));
    const [prompt, load] = await Promise.all([agent.answer(3), agent.answer(4)]);
    expect(prompt.result).toEqual({ stopReason: "end_turn" });
    // Refused while the prompt ran, or served before it started: answered either way.
    expect([undefined, -32600]).toContain((load.error as { code?: number } | undefined)?.code);
    await stillServes(agent, 5);
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).not.toContain("could not announce");
  });
});

test("two loads of a session another process holds: both refused naming that process, and the agent serves on", async () => {
  fixture.server.enqueue({ text: "one" });
  const holder = fixture.startAgent();
  await holder.initialize();
  const sessionId = await holder.newSession();
  expect(await holder.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  const agent = await initializedAgent(fixture);
  agent.write(about(2, "session/load", sessionId) + about(3, "session/load", sessionId));
  const refusals = await errors(agent, [2, 3]);
  for (const refusal of refusals) {
    expect(refusal).toMatchObject({
      code: -32600,
      message: expect.stringContaining(
        `Session ${sessionId} is open in another process (pid ${holder.process.pid}, running: `,
      ),
      data: { sessionId, owner: { pid: holder.process.pid } },
    });
  }
  await stillServes(agent, 4);
  expect(await agent.end()).toBe(0);
  expect(await holder.end()).toBe(0);
});
