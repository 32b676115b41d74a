/**
 * The chaos bench's store figures (bench/scale.mjs), measured in this process through the built
 * PostgreSQL store: appended events per second in batches (several sessions committing at once),
 * and commit → subscriber wake-up latency across two store instances (two workers).
 */

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { percentile } from "./statistics.mjs";

/**
 * @param {string} dist the built `dist/` folder
 * @param {string} url the database
 * @param {string} home a scratch TURNLOOP_HOME
 */
export async function measureStore(dist, url, home) {
  const { PostgresSessionStore } = await import(join(dist, "session", "postgres", "store.js"));
  const { createEnvelope } = await import(join(dist, "session", "envelope.js"));
  const writer = new PostgresSessionStore({ url, home });
  const reader = new PostgresSessionStore({ url, home });
  try {
    const appended = await appendRate(writer, createEnvelope);
    const wakeUp = await wakeUpLatency(writer, reader, createEnvelope);
    return { ...appended, ...wakeUp };
  } finally {
    await writer.close();
    await reader.close();
  }
}

const SESSIONS = 8;
const BATCHES = 40;
const BATCH = 25;

/** Events of `SESSIONS` sessions appended at once, `BATCH` per commit. */
async function appendRate(store, createEnvelope) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const sessionId = `bench-${randomUUID()}`;
      const appender = await store.create(sessionId);
      let parent = null;
      for (let batch = 0; batch < BATCHES; batch++) {
        for (let index = 0; index < BATCH; index++) {
          const event = createEnvelope(
            { type: "user.message", data: { content: `event ${batch}.${index}`, source: "user" } },
            parent,
          );
          appender.append(event);
          parent = event.id;
        }
        await appender.commit();
      }
      await appender.close();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    eventsPerSecond: (SESSIONS * BATCHES * BATCH) / seconds,
    appendedEvents: SESSIONS * BATCHES * BATCH,
  };
}

const COMMITS = 200;
/** Commits are spaced past the notification interval (50 ms), as separate turns would be. */
const SPACING_MS = 60;

/** From a commit resolving on one worker to its event reaching a subscriber on another. */
async function wakeUpLatency(writer, reader, createEnvelope) {
  const sessionId = `bench-${randomUUID()}`;
  const appender = await writer.create(sessionId);
  const first = createEnvelope(
    { type: "user.message", data: { content: "start", source: "user" } },
    null,
  );
  appender.append(first);
  await appender.commit();
  /** @type {Map<number, () => void>} */
  const waiting = new Map();
  const subscription = await reader.subscribe(sessionId, 2, (_event, seq) => {
    waiting.get(seq)?.();
  });
  const latencies = [];
  let parent = first.id;
  for (let index = 0; index < COMMITS; index++) {
    const event = createEnvelope(
      { type: "user.message", data: { content: `${index}`, source: "user" } },
      parent,
    );
    parent = event.id;
    const seq = index + 2;
    const delivered = new Promise((resolve) => waiting.set(seq, () => resolve(performance.now())));
    appender.append(event);
    await appender.commit();
    const committed = performance.now();
    latencies.push(/** @type {number} */ (await delivered) - committed);
    await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
  }
  await subscription.close();
  await appender.close();
  latencies.sort((left, right) => left - right);
  return {
    wakeUpP50: percentile(latencies, 0.5),
    wakeUpP99: percentile(latencies, 0.99),
    wakeUpCommits: COMMITS,
    wakeUpSpacingMs: SPACING_MS,
  };
}
