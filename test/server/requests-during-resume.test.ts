import { describe, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { eventsPath } from "../../src/session/paths.js";
import { fixtureForEachTest } from "../sdk/support.js";
import { ANSWER_TURN, ANSWERED_SESSION } from "../support/event-sequences.js";
import { type RawPeer, spawnServer } from "./raw-peer.js";

// An app may send requests about a session without waiting for the answer to its
// `session.resume`: each waits for the resume, then runs, or fails with the resume's error
// (src/session/opening-gate.ts). `session.send` was answered "Session not found".

const fixture = fixtureForEachTest();

function request(id: number, method: string, params: unknown): string {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A session with one answered prompt, made by a server that has exited. */
async function storedSession(): Promise<string> {
  const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
  await peer.request("connect", {});
  const created = await peer.request("session.create", {});
  const { sessionId } = created.result as { sessionId: string };
  fixture.model.enqueue({ text: "one" });
  await peer.request("session.send", { sessionId, prompt: "first" });
  await idle(peer);
  child.stdin.end();
  expect(await exit).toBe(0);
  return sessionId;
}

/** Resolves once the peer has seen a `session.idle` event. */
function idle(peer: RawPeer): Promise<unknown> {
  return peer.waitFor(
    (message) =>
      message.method === "session.event" &&
      (message.params as { event: { type: string } }).event.type === "session.idle",
  );
}

async function loggedTypes(sessionId: string): Promise<string[]> {
  const log = await readEventLog(eventsPath(fixture.home, sessionId));
  return log.events.map((event) => event.type);
}

describe("turnloop --headless: requests sent with session.resume", () => {
  test("session.send and session.model.getCurrent in the resume's write: answered after it, and run", async () => {
    const sessionId = await storedSession();
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    fixture.model.enqueue({ text: "two" });
    child.stdin.write(
      request(2, "session.resume", { sessionId }) +
        request(3, "session.send", { sessionId, prompt: "second" }) +
        request(4, "session.model.getCurrent", { sessionId }),
    );
    await peer.waitFor((message) => message.id === 4);
    await idle(peer);
    const answers = peer.messages.filter((message) => message.method === undefined);
    expect(answers.map((answer) => [answer.id, answer.error])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
      [4, undefined],
    ]);
    expect(answers[1]?.result).toMatchObject({ sessionId });
    expect(answers[2]?.result).toEqual({ messageId: expect.any(String) });
    expect(answers[3]?.result).toEqual({ modelId: "fake-model" });
    child.stdin.end();
    expect(await exit).toBe(0);
    const types = await loggedTypes(sessionId);
    expect(types).toEqual([
      ...ANSWERED_SESSION,
      "session.shutdown",
      "session.resume",
      "user.message",
      ...ANSWER_TURN,
      "session.shutdown",
    ]);
    expect(stderr()).toBe("");
  });

  test("session.send with a resume that fails: answered with the resume's error, or not found", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const sessionId = "00000000-0000-4000-8000-000000000000";
    child.stdin.write(
      request(2, "session.resume", { sessionId }) +
        request(3, "session.send", { sessionId, prompt: "hi" }),
    );
    const resume = await peer.waitFor((message) => message.id === 2);
    const send = await peer.waitFor((message) => message.id === 3);
    expect(resume.error).toMatchObject({ code: -32602 });
    expect(resume.error?.message).toMatch(/^session\.resume: no session /);
    // vscode-jsonrpc reads the next message a macrotask later: a resume that fails at once may be
    // over before the send is read, which then finds no session (and says so).
    const notOpen = `Session not found: ${sessionId} (it is not open in this server: create or resume it)`;
    expect([resume.error, { code: -32602, message: notOpen }]).toContainEqual(send.error);
    child.stdin.end();
    expect(await exit).toBe(0);
  });
});
