/**
 * One SIGTERM ends a `turnloop acp` that is already closing (src/acp/main.ts), as it ends the
 * server (test/server/signal-while-stopping.test.ts): its stdin ended during a turn, which it
 * cancelled, and writing the cancel waits on the store (the PostgreSQL `events` table locked by
 * another transaction). The SIGTERM was taken for a first stop: the agent began closing its
 * sessions again, waited on the same lock, and only a second signal ended it.
 */

import { describe, expect, onTestFinished, test } from "vitest";
import { gate } from "../support/gate.js";
import { endLockWaiters, lockWaits, storedTypes } from "../support/locked-events.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { ChildFixture } from "./child-process.js";
import { RawAcpAgent, textPrompt } from "./raw-lines.js";

const fixture = ChildFixture.forEachTest();

const TURN_STORED = ["session.start", "user.message", "assistant.turn_start"];

describe.skipIf(postgresUnavailable !== undefined)("turnloop acp: SIGTERM while it closes", () => {
  test("stdin ended during a turn, the cancel waits on a lock: one SIGTERM ends it, exit 143", {
    timeout: 60_000,
  }, async () => {
    const database = await createTestDatabase();
    const env = fixture.environment({ TURNLOOP_DATABASE_URL: database.url });
    const agent = new RawAcpAgent(env, fixture.cwd);
    const locker = await database.pool.connect();
    onTestFinished(async () => {
      // An agent that took the SIGTERM for a first stop waits for the lock for ever.
      agent.kill();
      locker.release();
      await database.drop();
    });
    // The model starts its answer and never finishes it: a turn in flight.
    fixture.server.setResponder(() => ({
      text: "never",
      pause: { afterEvents: 0, until: gate().opened },
    }));
    await agent.request(1, "initialize", { protocolVersion: 1 });
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    agent.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId, prompt: textPrompt("wait") } })}\n`,
    );
    await expect.poll(() => storedTypes(database.pool, sessionId)).toEqual(TURN_STORED);
    // The turn start is stored before its request is sent: a stop before the request would
    // leave no request in flight to cancel.
    await expect.poll(() => fixture.server.requests.length).toBe(1);
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
    agent.endInput();
    // Gates: stdin's end cancelled the turn (the model's request closed), and writing the cancel
    // waits for the lock.
    await expect.poll(() => fixture.server.requests[0]?.clientClosed).toBe(true);
    await expect.poll(() => lockWaits(database.pool)).toBeGreaterThan(0);
    agent.signal("SIGTERM");
    expect(await agent.ended).toEqual({ code: 143, signal: null });
    expect(agent.stderr).toBe("");
    // Only protocol messages on stdout (each line parsed as JSON-RPC): the two answers and the
    // session's updates before its turn; the prompt's answer never came, the cancel it waited
    // for was never stored.
    const said = agent.messages.map((message) => {
      const params = message.params as { update?: { sessionUpdate?: string } } | undefined;
      return params?.update?.sessionUpdate ?? message.id;
    });
    expect(said).toEqual([1, 2, "available_commands_update", "session_info_update"]);
    await endLockWaiters(database.pool);
    await locker.query("ROLLBACK");
    // What the store took before is kept; the cancel and the end it was writing never were.
    expect(await storedTypes(database.pool, sessionId)).toEqual(TURN_STORED);
  });
});
