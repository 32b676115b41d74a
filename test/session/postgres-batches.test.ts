import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type Harness, startHarness } from "../support/harness.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";
import { callingTools } from "../support/replies.js";

/**
 * The statements a prompt costs on the PostgreSQL store (README: events are sent in one statement
 * per batch at the points the file store syncs, and before each model request). A worker tells
 * its clients an event once the database holds it (held-delivery.ts); the commit
 * it asks for must ride on the session's own commit points, not add statements of its own (lane
 * pg, session 38: a prompt of two turns took 9 statements instead of 6, bench/notes/pg38.md).
 * Each statement is one transaction, so the events it wrote share their `xmin`.
 */

let harness: Harness | undefined;
let database: TestDatabase | undefined;
let store: PostgresSessionStore | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await store?.close();
  store = undefined;
  await database?.drop();
  database = undefined;
});

const noop = defineTool({
  name: "noop",
  description: "Does nothing.",
  input: z.object({}),
  kind: "read",
  execute: async () => ({ content: "done", isError: false }),
});

describe.skipIf(postgresUnavailable !== undefined)("a prompt's statements on PostgreSQL", () => {
  test("a tool call then an answer: one statement per commit point, none for telling the clients", async () => {
    database = await createTestDatabase();
    const worker = new PostgresSessionStore({ url: database.url, home: "/tmp" });
    store = worker;
    const started = await startHarness({ store: () => worker, tools: [noop] });
    harness = started;
    started.server.enqueue(callingTools(["call-1", "noop", {}]), { text: "answer" });
    expect(await started.prompt("go")).toMatchObject({ stopReason: "end_turn" });

    const { rows } = await database.pool.query<{ type: string; batch: string }>(
      "SELECT type, xmin::text AS batch FROM events ORDER BY seq",
    );
    const batches: string[][] = [];
    for (const [index, { type, batch }] of rows.entries()) {
      if (index > 0 && rows[index - 1]?.batch === batch) {
        batches.at(-1)?.push(type);
      } else {
        batches.push([type]);
      }
    }
    expect(batches).toEqual([
      ["session.start"],
      ["user.message"],
      ["assistant.turn_start"],
      ["assistant.message", "assistant.usage", "tool.execution_start"],
      ["tool.execution_complete", "assistant.turn_end"],
      ["assistant.turn_start"],
      ["assistant.message", "assistant.usage", "assistant.turn_end"],
    ]);
    // Every event the client was told is one the log holds, in its order.
    const told = started.events.filter((event) => event.ephemeral !== true);
    expect(told).toEqual((await started.persisted()).slice(1));
  });
});
