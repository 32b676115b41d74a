/**
 * The SessionStore contract of `subscribe` (src/session/session-store.ts): every persisted event
 * from a sequence number on, in order, exactly once; catch-up first, then each commit; nothing
 * after `close`. Run by each store's test file beside `describeSessionStore`.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { createEnvelope } from "../../src/session/envelope.js";
import type { SessionSubscription } from "../../src/session/session-follower.js";
import type { SessionAppender, SessionStore } from "../../src/session/session-store.js";
import type { StoreUnderTest } from "./store-contract.js";
import { sessionStart, userMessage } from "./support.js";

/** What one subscriber saw, and a way to wait until it saw `count` events. */
export interface Seen {
  events: Array<{ seq: number; event: SessionEvent }>;
  onEvent(event: SessionEvent, seq: number): void;
  /** Settles once `count` events were seen. */
  until(count: number): Promise<void>;
}

export function seen(): Seen {
  const events: Seen["events"] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    events,
    onEvent(event, seq) {
      events.push({ seq, event });
      for (const waiter of waiting.filter(({ count }) => events.length >= count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    until(count) {
      return events.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve }));
    },
  };
}

/**
 * Appends `inputs` after `after` (chained envelopes; the first has no parent when `after` is
 * undefined), as a session would; returns the events appended.
 */
export function appendAfter(
  appender: SessionAppender,
  inputs: readonly EventInput[],
  after?: SessionEvent,
): SessionEvent[] {
  const events: SessionEvent[] = [];
  let parent = after;
  for (const input of inputs) {
    const event = createEnvelope(input, parent?.id ?? null);
    appender.append(event);
    events.push(event);
    parent = event;
  }
  return events;
}

/** `inputs` as events chained after `after`, not appended anywhere. */
function chained(inputs: readonly EventInput[], after: SessionEvent | undefined): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const input of inputs) {
    events.push(createEnvelope(input, (events.at(-1) ?? after)?.id ?? null));
  }
  return events;
}

/** `events` with the sequence numbers `1 + offset, 2 + offset, …`. */
const numbered = (events: readonly SessionEvent[], offset = 0) =>
  events.map((event, index) => ({ seq: index + 1 + offset, event }));

/** Runs the `subscribe` contract against the stores `createStore` makes (one per test). */
export function describeSubscriptions(name: string, createStore: () => Promise<StoreUnderTest>) {
  describe(`SessionStore subscribe: ${name}`, () => {
    let current: StoreUnderTest | undefined;
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) {
        await cleanup();
      }
      await current?.cleanup();
      current = undefined;
    });
    async function setUp(): Promise<SessionStore> {
      current = await createStore();
      return current.store;
    }
    async function create(store: SessionStore, sessionId: string) {
      const appender = await store.create(sessionId);
      cleanups.push(() => appender.close());
      return appender;
    }
    async function subscribe(store: SessionStore, sessionId: string, fromSeq: number, to: Seen) {
      const subscription: SessionSubscription = await store.subscribe(
        sessionId,
        fromSeq,
        (event, seq) => to.onEvent(event, seq),
      );
      cleanups.push(() => subscription.close());
      return subscription;
    }

    it("delivers the stored events from a sequence number, then each commit, once and in order", async () => {
      const store = await setUp();
      const appender = await create(store, "s1");
      const first = appendAfter(appender, [sessionStart("s1"), userMessage("one")], undefined);
      first.push(...appendAfter(appender, [userMessage("two")], first.at(-1)));
      await appender.commit();
      const fromSecond = seen();
      const whole = seen();
      await subscribe(store, "s1", 2, fromSecond);
      await subscribe(store, "s1", 1, whole);
      // The catch-up is delivered before subscribe resolves.
      expect(fromSecond.events).toEqual(numbered(first.slice(1), 1));
      expect(whole.events).toEqual(numbered(first));

      const later = appendAfter(
        appender,
        [userMessage("three"), userMessage("four")],
        first.at(-1),
      );
      await appender.commit();
      await Promise.all([fromSecond.until(4), whole.until(5)]);
      expect(whole.events).toEqual(numbered([...first, ...later]));
      expect(fromSecond.events).toEqual(numbered([...first, ...later].slice(1), 1));
    });

    it("sees every event of many small commits made while it catches up, once and in order", async () => {
      const store = await setUp();
      const appender = await create(store, "s1");
      const appended = appendAfter(appender, [sessionStart("s1")], undefined);
      await appender.commit();
      const whole = seen();
      const producer = async () => {
        for (let index = 0; index < 60; index++) {
          appended.push(...appendAfter(appender, [userMessage(`m${index}`)], appended.at(-1)));
          await (index % 3 === 0 ? appender.commit() : Promise.resolve());
        }
        await appender.commit();
      };
      await Promise.all([producer(), subscribe(store, "s1", 1, whole)]);
      await whole.until(61);
      expect(whole.events).toEqual(numbered(appended));
    });

    it("follows another process's appends: each committed event once, in order, no half line", async () => {
      const store = await setUp();
      const appender = await store.create("s1");
      const start = appendAfter(appender, [sessionStart("s1")], undefined);
      await appender.close();
      const whole = seen();
      await subscribe(store, "s1", 1, whole);
      // Big events (each written in pieces) committed in small batches, so reads meet lines
      // being written.
      const inputs = Array.from({ length: 40 }, (_, index) =>
        userMessage(`from the other process ${index} ${"x".repeat(index * 4096)}`),
      );
      const later = chained(inputs, start.at(-1));
      await current?.appendInAnotherProcess("s1", later, 3);
      await whole.until(41);
      expect(whole.events).toEqual(numbered([...start, ...later]));
    });

    it("stops delivering once closed, while other subscribers go on", async () => {
      const store = await setUp();
      const appender = await create(store, "s1");
      const start = appendAfter(appender, [sessionStart("s1")], undefined);
      await appender.commit();
      const closed = seen();
      const open = seen();
      const subscription = await subscribe(store, "s1", 1, closed);
      await subscribe(store, "s1", 1, open);
      await subscription.close();
      const after = appendAfter(appender, [userMessage("after close")], start.at(-1));
      await appender.commit();
      await open.until(2);
      expect(open.events).toEqual(numbered([...start, ...after]));
      expect(closed.events).toEqual(numbered(start));
    });

    it("refuses to follow a session that does not exist or an invalid id", async () => {
      const store = await setUp();
      await expect(store.subscribe("missing", 1, () => undefined)).rejects.toMatchObject({
        code: "ENOENT",
      });
      await expect(store.subscribe("../../etc", 1, () => undefined)).rejects.toThrow(
        /Invalid session id/,
      );
    });
  });
}
