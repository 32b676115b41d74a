import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { PostgresSessionStore } from "../../src/session/postgres/store.js";
import { startHarness } from "../support/harness.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";
import { makeTemporaryDirectory } from "./support.js";

/**
 * Trial 27f, finding 6: the PostgreSQL store wrote a turn's events only at its end, so a worker
 * killed while its model request was in flight left no `assistant.turn_start` for it, while
 * README ("Where sessions are kept") says `grep -c assistant.turn_start` equals the number of
 * requests made. The store sends a `turn_start` as the request goes out: another worker sees it
 * while the model has not answered yet.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

describe.skipIf(postgresUnavailable !== undefined)("a model request on PostgreSQL", () => {
  it("is stored as assistant.turn_start while the model has not answered", async () => {
    const tested = await createTestDatabase();
    cleanups.push(() => tested.drop());
    let store: PostgresSessionStore | undefined;
    const harness = await startHarness({
      store: (home) => {
        store = new PostgresSessionStore({ url: tested.url, home });
        return store;
      },
    });
    cleanups.push(async () => {
      await harness.close();
      await store?.close();
    });
    const watcher = new PostgresSessionStore({
      url: tested.url,
      home: await makeTemporaryDirectory(),
      pollMs: 50,
    });
    cleanups.push(() => watcher.close());
    const seen: string[] = [];
    let requestStored: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => {
      requestStored = resolve;
    });
    const subscription = await watcher.subscribe(harness.session.id, 1, (event: SessionEvent) => {
      seen.push(event.type);
      if (event.type === "assistant.turn_start") {
        requestStored();
      }
    });
    cleanups.push(() => subscription.close());
    // The model answers only once another worker has read the request's turn_start.
    harness.server.setResponder(() => ({ text: "hi", pause: { afterEvents: 0, until: stored } }));
    expect(await harness.prompt("hello")).toEqual({ stopReason: "end_turn" });
    expect(seen.slice(0, 3)).toEqual(["session.start", "user.message", "assistant.turn_start"]);
  }, 30_000);
});
