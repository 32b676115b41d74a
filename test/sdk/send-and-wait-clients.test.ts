import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TurnloopClient } from "../../src/sdk/index.js";
import type { TurnloopSession } from "../../src/sdk/session.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

// A trial of session 18's build (round 3, session 19, item 2): with two apps on one session,
// `sendAndWait` ended at any `session.idle`: B's returned A's late idle (undefined), A's returned
// B's answer; after an abort it returned the prompt's tool-call message (empty) as the answer.

const fixture = fixtureForFile();
let tcp: TcpServer;
const clients: TurnloopClient[] = [];

beforeAll(async () => {
  tcp = await startTcpServer(fixture);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.stop().catch(() => undefined)));
  await tcp.stop();
});

const approve = { onPermissionRequest: async () => ({ kind: "approve-once" as const }) };

/** A client of the TCP server, stopped after the file. */
function client(): TurnloopClient {
  const made = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
  clients.push(made);
  return made;
}

/** One session open in two clients: `first` made it, `second` resumed it. */
async function sharedSession(): Promise<[TurnloopSession, TurnloopSession]> {
  const first = await client().createSession(approve);
  const second = await client().resumeSession(first.sessionId, approve);
  return [first, second];
}

/** Resolves once the fake model has received `count` requests in all. */
async function modelRequests(count: number): Promise<void> {
  await expect.poll(() => fixture.model.requests.length, { timeout: 15_000 }).toBe(count);
}

describe("sendAndWait with several clients on one session", () => {
  test("each client's sendAndWait answers its own prompt, the other's running or queued", async () => {
    const [first, second] = await sharedSession();
    const held = gate();
    const before = fixture.model.requests.length;
    fixture.model.enqueue(
      { text: "answer for the first", pause: { afterEvents: 1, until: held.opened } },
      { text: "answer for the second" },
    );
    const firstReply = first.sendAndWait("first question");
    await modelRequests(before + 1);
    // Sent while the first runs: it waits in the queue, and its idle is the queue's.
    const secondReply = second.sendAndWait("second question");
    await nextEvent(first, (event) => event.type === "pending_messages.modified");
    held.open();
    expect((await firstReply)?.data.content).toBe("answer for the first");
    expect((await secondReply)?.data.content).toBe("answer for the second");
  });

  test("a send right after the other client's prompt ended waits for its own answer", async () => {
    const [first, second] = await sharedSession();
    for (const round of [1, 2, 3]) {
      fixture.model.enqueue({ text: `first ${round}` }, { text: `second ${round}` });
      expect((await first.sendAndWait(`first ${round}`))?.data.content).toBe(`first ${round}`);
      // The first prompt's idle may still be on its way to the second client.
      expect((await second.sendAndWait(`second ${round}`))?.data.content).toBe(`second ${round}`);
    }
  });

  test("an aborted prompt answers undefined, not its tool-call message", async () => {
    const [first, second] = await sharedSession();
    fixture.model.enqueue(callingTools(["call_1", "bash", { command: "sleep 30" }]));
    const reply = first.sendAndWait("wait");
    await nextEvent(second, (event) => event.type === "tool.execution_start");
    await second.abort();
    expect(await reply).toBeUndefined();
  });

  test("a client stopped while its prompt runs rejects its wait, no tool-call message", async () => {
    const [first, second] = await sharedSession();
    fixture.model.enqueue(callingTools(["call_1", "bash", { command: "sleep 30" }]));
    const stopped = client();
    const own = await stopped.resumeSession(first.sessionId, approve);
    const reply = own.sendAndWait("wait").then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    );
    await nextEvent(second, (event) => event.type === "tool.execution_start");
    await stopped.stop();
    expect(await reply).toEqual({ error: expect.any(Error) });
    await second.abort();
  });
});
