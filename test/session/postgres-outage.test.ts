import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type Harness, startHarness, types } from "../support/harness.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { Relay } from "../support/postgres-relay.js";
import { buildEvents, makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

/**
 * Trial 27f, finding 1: PostgreSQL stopped for a few seconds and started again. A write the
 * database could not take while it was away is tried again on a new connection, so a short
 * outage loses nothing; a long one fails with the error of its last try; and the next prompt is
 * never refused with an error kept from the outage.
 *
 * The outage is a real TCP relay in front of the real test server: cutting it ends every
 * connection through it, and it then ends each new one at once (`pg`: "Connection terminated
 * unexpectedly"), counting them, so a test waits on the tries themselves, never on time.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

/** A database of its own, reached through a {@link Relay}: its URL and the relay. */
async function relayedDatabase(): Promise<{ tested: TestDatabase; url: string; relay: Relay }> {
  const tested = await createTestDatabase();
  cleanups.push(() => tested.drop());
  const target = new URL(tested.url);
  const relay = new Relay(target);
  const relayed = new URL(tested.url);
  relayed.port = String(await relay.listen());
  cleanups.push(() => relay.close());
  return { tested, url: relayed.href, relay };
}

async function storedTypes(tested: TestDatabase, sessionId: string): Promise<string[]> {
  const { rows } = await tested.pool.query<{ type: string }>(
    "SELECT type FROM events WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
  return rows.map((row) => row.type);
}

/** A worker through the relay whose heartbeat stays off the relay's count during a test. */
async function worker(url: string, retryDelaysMs: readonly number[]) {
  const store = new PostgresSessionStore({
    url,
    home: await makeTemporaryDirectory(),
    heartbeatMs: 600_000,
    leaseMs: 1_200_000,
    retryDelaysMs,
  });
  cleanups.push(() => store.close());
  return store;
}

describe.skipIf(postgresUnavailable !== undefined)("the PostgreSQL store across an outage", () => {
  it("writes a batch the database could not take while it was away once it is back", async () => {
    const { tested, url, relay } = await relayedDatabase();
    const store = await worker(
      url,
      Array.from({ length: 100 }, () => 20),
    );
    const appender = await store.create("short");
    cleanups.push(() => appender.close());
    const [start, prompt] = buildEvents([sessionStart("short"), userMessage("during the outage")]);
    appender.append(start as NonNullable<typeof start>);
    await appender.commit();

    relay.cut(Number.POSITIVE_INFINITY);
    appender.append(prompt as NonNullable<typeof prompt>);
    const committed = appender.commit();
    await relay.refusedAtLeast(2);
    relay.restore();
    await committed;
    expect(await storedTypes(tested, "short")).toEqual(["session.start", "user.message"]);
  });

  it("fails a commit with its last try's error after the retries; the next one writes it all", async () => {
    const { tested, url, relay } = await relayedDatabase();
    const store = await worker(url, [10, 10]);
    const appender = await store.create("long");
    cleanups.push(() => appender.close());
    const [start, first, second] = buildEvents([
      sessionStart("long"),
      userMessage("lost for now"),
      userMessage("after the outage"),
    ]);
    appender.append(start as NonNullable<typeof start>);
    await appender.commit();

    relay.cut(Number.POSITIVE_INFINITY);
    appender.append(first as NonNullable<typeof first>);
    await expect(appender.commit()).rejects.toThrow(
      /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+: Connection terminated unexpectedly$/,
    );
    // One try, then one after each of the two waits: each on a new connection, refused, but the
    // first goes over the pool's idle one when the pool has not yet seen the cut close it (it
    // fails there, not counted). That connection was busy with the commit's notification before
    // the notification rode in the append's statement (notify.ts), so the first try always opened
    // another then.
    expect([2, 3]).toContain(relay.refused);

    relay.restore();
    appender.append(second as NonNullable<typeof second>);
    await appender.commit();
    expect(await storedTypes(tested, "long")).toEqual([
      "session.start",
      "user.message",
      "user.message",
    ]);
  });

  it("answers the prompt after an outage that ended with the last turn's end", async () => {
    const { tested, url, relay } = await relayedDatabase();
    let store: PostgresSessionStore | undefined;
    const harness = await startHarness({
      store: (home) => {
        store = new PostgresSessionStore({
          url,
          home,
          heartbeatMs: 600_000,
          leaseMs: 1_200_000,
          retryDelaysMs: [10, 10],
        });
        return store;
      },
    });
    cleanups.push(async () => {
      await harness.close();
      await store?.close();
    });
    // Once the request's turn_start is stored, the turn end checkpoint's three tries fail (after
    // session.idle: the checkpoint is not awaited), and the prompt's last commit gets through.
    const watcher = new PostgresSessionStore({ url: tested.url, home: harness.home });
    cleanups.push(() => watcher.close());
    let requestStored: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => {
      requestStored = resolve;
    });
    const subscription = await watcher.subscribe(harness.session.id, 1, (event) => {
      if (event.type === "assistant.turn_start") {
        requestStored();
      }
    });
    cleanups.push(() => subscription.close());
    const writesFail = stored.then(() => relay.failWrites(3));
    harness.server.setResponder((request) => ({
      text: request === harness.server.requests[0] ? "one" : "two",
      pause: { afterEvents: 0, until: writesFail },
    }));
    expect(await harness.prompt("first")).toEqual({ stopReason: "end_turn" });
    expect(relay.refused).toBe(3);
    expect(await harness.prompt("second")).toEqual({ stopReason: "end_turn" });
    expect(types(await harness.persisted())).toEqual([
      "session.start",
      ...["user.message", "assistant.turn_start", "assistant.message", "assistant.usage"],
      "assistant.turn_end",
      ...["user.message", "assistant.turn_start", "assistant.message", "assistant.usage"],
      "assistant.turn_end",
    ]);
  });

  /**
   * Trial 27f, finding 2: the database went away while a command ran, so the command's result
   * could not be written and the model later read "Interrupted … it may have partly run".
   */
  async function toolHarness(url: string, relay: Relay, restoreAfter: number | undefined) {
    const finish = defineTool({
      name: "finish",
      description: "Finishes while the database is away.",
      input: z.object({}),
      kind: "other",
      mutates: false,
      execute: async () => {
        relay.cut(Number.POSITIVE_INFINITY);
        if (restoreAfter !== undefined) {
          void relay.refusedAtLeast(restoreAfter).then(() => relay.restore());
        }
        return { content: "tool-done", isError: false };
      },
    });
    let store: PostgresSessionStore | undefined;
    const harness = await startHarness({
      tools: [finish],
      store: (home) => {
        store = new PostgresSessionStore({
          url,
          home,
          heartbeatMs: 600_000,
          leaseMs: 1_200_000,
          retryDelaysMs: restoreAfter === undefined ? [10, 10] : Array(100).fill(20),
        });
        return store;
      },
    });
    cleanups.push(async () => {
      await harness.close();
      await store?.close();
    });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_1", name: "finish", arguments: "{}" }] },
      { text: "done" },
      { text: "after the outage" },
    );
    return harness;
  }

  const TOOL_PROMPT = [
    ...["user.message", "assistant.turn_start", "assistant.message", "assistant.usage"],
    ...["tool.execution_start", "tool.execution_complete", "assistant.turn_end"],
    ...["assistant.turn_start", "assistant.message", "assistant.usage", "assistant.turn_end"],
  ];

  async function toolResults(harness: Harness): Promise<unknown[]> {
    return (await harness.persisted())
      .filter((event) => event.type === "tool.execution_complete")
      .map((event) => event.data);
  }

  it("keeps a tool's result that finished during a short outage, and the prompt goes on", async () => {
    const { url, relay } = await relayedDatabase();
    const harness = await toolHarness(url, relay, 2);
    expect(await harness.prompt("run it")).toEqual({ stopReason: "end_turn" });
    expect(types(await harness.persisted())).toEqual(["session.start", ...TOOL_PROMPT]);
    expect(await toolResults(harness)).toMatchObject([
      { toolCallId: "call_1", success: true, result: { content: "tool-done" } },
    ]);
  });

  it("stops the prompt in a long outage as README says, and stores the result once it is back", async () => {
    const { url, relay } = await relayedDatabase();
    const harness = await toolHarness(url, relay, undefined);
    expect(await harness.prompt("run it")).toEqual({
      error: {
        errorType: "storage",
        message: expect.stringMatching(
          /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+ \(session [\w-]+\) could not be written \((?!postgres).*Connection terminated unexpectedly\): the prompt was stopped; every event written before is kept$/,
        ),
      },
    });
    relay.restore();
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(await toolResults(harness)).toMatchObject([
      { toolCallId: "call_1", success: true, result: { content: "tool-done" } },
    ]);
    // No second request went out while the result it carries could not be stored (trial 31):
    // the one model request of the prompt, then the next prompt's; nothing held back is missing.
    expect(harness.server.requests).toHaveLength(2);
    expect(types(await harness.persisted())).toEqual([
      "session.start",
      ...TOOL_PROMPT.slice(0, 7),
      "session.error",
      ...["user.message", "assistant.turn_start", "assistant.message", "assistant.usage"],
      "assistant.turn_end",
    ]);
  });
});
