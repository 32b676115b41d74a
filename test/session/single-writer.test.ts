/**
 * One writer per session across processes: `-p`, `turnloop acp` and the server take the
 * session's lock when they open it for writing; a second opener is told who has it, and
 * read-only uses need no lock. Every test runs real `turnloop` processes.
 */

import { existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { type AcpChild, ChildFixture } from "../acp/child-process.js";
import { eventually } from "../llm/helpers.js";
import { spawnServer } from "../server/raw-peer.js";
import { runCli } from "../support/cli.js";
import { ANSWER_TURN } from "../support/event-sequences.js";
import { deadPid } from "../support/processes.js";

const fixture = ChildFixture.forEachTest();

async function editorWithSession(): Promise<{ agent: AcpChild; sessionId: string }> {
  const agent = fixture.startAgent();
  await agent.initialize();
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: fixture.cwd,
    mcpServers: [],
  });
  return { agent, sessionId };
}

/** `turnloop …args` as a child process in the fixture's cwd and home. */
function turnloop(...args: string[]) {
  return runCli(args, { cwd: fixture.cwd, env: fixture.environment() });
}

function lockPath(sessionId: string): string {
  return join(fixture.home, "session-state", sessionId, "lock");
}

describe("a session open in an editor (turnloop acp)", () => {
  test("-p --resume exits 1 naming the editor's process and writes nothing", async () => {
    const { agent, sessionId } = await editorWithSession();
    const before = await readFile(join(fixture.home, "session-state", sessionId, "events.jsonl"));

    const second = await turnloop("-p", "hello", "--resume", sessionId);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      `turnloop: Session ${sessionId} is open in another process (pid ${agent.process.pid}, running: turnloop acp, since ${
        JSON.parse(await readFile(lockPath(sessionId), "utf8")).acquiredAt
      }); close it there first.\n`,
    );
    const after = await readFile(join(fixture.home, "session-state", sessionId, "events.jsonl"));
    expect(after.equals(before)).toBe(true);
    expect(fixture.server.requests).toHaveLength(0);

    // Reading needs no lock; deleting is refused while the editor writes.
    const shown = await turnloop("sessions", "show", sessionId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session ${sessionId}`);
    const deleted = await turnloop("sessions", "delete", sessionId);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain(`is open in another process (pid ${agent.process.pid}`);

    // Once the editor has gone, the session is free.
    expect(await agent.end()).toBe(0);
    expect(existsSync(lockPath(sessionId))).toBe(false);
    fixture.server.enqueue({ text: "Now it is mine." });
    const third = await turnloop("-p", "hello", "--resume", sessionId);
    expect(third.stderr).not.toContain("open in another process");
    expect(third.code).toBe(0);
    expect(third.stdout).toContain("Now it is mine.");
    expect(existsSync(lockPath(sessionId))).toBe(false);
  });

  test("the server refuses session.resume with a JSON-RPC error; getEvents still reads it", async () => {
    const { agent, sessionId } = await editorWithSession();
    const server = spawnServer(["--stdio"], fixture.environment(), fixture.cwd);
    await server.peer.request("connect", {});
    const resumed = await server.peer.request("session.resume", { sessionId });
    expect(resumed.error?.code).toBe(-32602);
    expect(resumed.error?.message).toMatch(
      new RegExp(
        `^session\\.resume: Session ${sessionId} is open in another process \\(pid ${agent.process.pid}, running: turnloop acp, since `,
      ),
    );
    const read = await server.peer.request("session.getEvents", { sessionId });
    const events = (read.result as { events: SessionEvent[] }).events;
    expect(events.map((event) => event.type)).toEqual(["session.start"]);
    const list = await server.peer.request("session.list", {});
    expect((list.result as { sessions: Array<{ sessionId: string }> }).sessions).toHaveLength(1);
    server.child.stdin.end();
    expect(await server.exit).toBe(0);
    expect(server.stderr()).toBe("");
  });
});

describe("a session open in the server", () => {
  test("while the server has it open and idle, an editor, -p and a delete are refused naming the server; its next prompt runs", async () => {
    const server = spawnServer(["--stdio"], fixture.environment(), fixture.cwd);
    await server.peer.request("connect", {});
    const created = await server.peer.request("session.create", {});
    const { sessionId } = created.result as { sessionId: string };
    // The server lets the writer lease go while idle (issue 25) but keeps it held idle: marked
    // as its own until it closes the session.
    const eventIs = (type: string) => (message: { params?: unknown }) =>
      (message.params as { event?: { type: string } } | undefined)?.event?.type === type;
    const lock = { pid: server.child.pid, hostname: hostname(), releasesWhenIdle: true };
    const readLock = () => JSON.parse(readFileSync(lockPath(sessionId), "utf8"));
    expect(await eventually(() => readLock().idle === true)).toBe(true);
    expect(readLock()).toEqual({
      ...lock,
      command: "turnloop --headless --stdio",
      acquiredAt: expect.any(String),
      idle: true,
      sharers: [
        { ...lock, command: "turnloop --headless --stdio", acquiredAt: readLock().acquiredAt },
      ],
    });
    const since = readLock().acquiredAt as string;
    const refusal =
      `Session ${sessionId} is open in another process (pid ${server.child.pid}, running: turnloop ` +
      `--headless --stdio, since ${since}); close it there first.`;

    const agent = fixture.startAgent();
    await agent.initialize();
    const load = agent.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: fixture.cwd,
      mcpServers: [],
    });
    await expect(load).rejects.toMatchObject({
      code: -32600,
      message: refusal,
      data: { sessionId, owner: { ...lock, idle: true } },
    });
    expect(agent.updates(sessionId)).toEqual([]);
    const resumed = await turnloop("-p", "hello", "--resume", sessionId);
    expect([resumed.code, resumed.stdout, resumed.stderr]).toEqual([
      1,
      "",
      `turnloop: ${refusal}\n`,
    ]);
    const deleted = await turnloop("sessions", "delete", sessionId);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain(refusal);
    expect(fixture.server.requests).toHaveLength(0);

    // The server's next prompt runs: nobody took its session meanwhile.
    fixture.server.enqueue({ text: "Still mine." });
    await server.peer.request("session.send", { sessionId, prompt: "work" });
    await server.peer.waitFor(eventIs("session.idle"));
    expect((await fixture.persisted(sessionId)).map((event) => event.type)).toEqual([
      "session.start",
      "user.message",
      ...ANSWER_TURN,
    ]);

    server.child.stdin.end();
    expect(await server.exit).toBe(0);
    expect(existsSync(lockPath(sessionId))).toBe(false);
    await agent.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: fixture.cwd,
      mcpServers: [],
    });
    expect(existsSync(lockPath(sessionId))).toBe(true);
  });

  test("two concurrent session.resume calls share one writer", async () => {
    fixture.server.enqueue({ text: "Started." });
    const first = await turnloop("-p", "start");
    expect(first.code).toBe(0);
    const [summary] = JSON.parse((await turnloop("sessions", "--json")).stdout) as Array<{
      sessionId: string;
    }>;
    const sessionId = summary?.sessionId ?? "";

    const server = spawnServer(["--stdio"], fixture.environment(), fixture.cwd);
    await server.peer.request("connect", {});
    const answers = await Promise.all([
      server.peer.request("session.resume", { sessionId }),
      server.peer.request("session.resume", { sessionId }),
    ]);
    expect(
      answers.map((answer) => [answer.error, (answer.result as { sessionId?: string })?.sessionId]),
    ).toEqual([
      [undefined, sessionId],
      [undefined, sessionId],
    ]);
    fixture.server.enqueue({ text: "One writer." });
    await server.peer.request("session.send", { sessionId, prompt: "again" });
    await server.peer.waitFor(
      (message) =>
        (message.params as { event?: { type: string } } | undefined)?.event?.type ===
        "session.idle",
    );
    server.child.stdin.end();
    expect(await server.exit).toBe(0);
    expect(server.stderr()).toBe("");
    expect(existsSync(lockPath(sessionId))).toBe(false);

    const events = await fixture.persisted(sessionId);
    expect(events.filter((event) => event.type === "session.resume")).toHaveLength(1);
    // One chain: every event's parent is the event before it.
    expect(events.slice(1).map((event) => event.parentId)).toEqual(
      events.slice(0, -1).map((event) => event.id),
    );
  });
});

describe("a lock left by a process that died", () => {
  test("is taken over; one from another host is not", async () => {
    const { agent, sessionId } = await editorWithSession();
    const pid = agent.process.pid;
    await agent.kill();
    // kill -9 leaves the lock behind, naming a pid that is gone.
    expect(JSON.parse(await readFile(lockPath(sessionId), "utf8"))).toMatchObject({ pid });
    fixture.server.enqueue({ text: "Recovered." });
    const taken = await turnloop("-p", "hello", "--resume", sessionId);
    expect(taken.stderr).not.toContain("open in another process");
    expect(taken.code).toBe(0);
    expect(existsSync(lockPath(sessionId))).toBe(false);

    const stale = { pid: await deadPid(), command: "turnloop acp", acquiredAt: "then" };
    const remote = { ...stale, hostname: `not-${hostname()}` };
    await writeFile(lockPath(sessionId), JSON.stringify(remote));
    const refused = await turnloop("-p", "hello", "--resume", sessionId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `is open in another process (pid ${stale.pid} on not-${hostname()}: turnloop acp, since then)`,
    );
  });
});
