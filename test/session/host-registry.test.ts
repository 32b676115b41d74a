import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SessionHost } from "../../src/session/host.js";
import { type TemporaryHost, temporaryHost } from "../support/temporary-host.js";

/** The session registry: `host.open(id)` is single-flight and cached; `host.get(id)` finds it. */

let host: SessionHost;
let temporary: TemporaryHost;

beforeEach(async () => {
  temporary = await temporaryHost("turnloop-registry-");
  ({ host } = temporary);
});

afterEach(() => temporary.remove());

/** A session on disk, closed again. */
async function storedSession(): Promise<string> {
  const session = await host.create(host.config.cwd.value, "openai-compatible:fake-model");
  await host.close(session);
  return session.id;
}

async function eventTypes(sessionId: string): Promise<string[]> {
  const { events } = await host.readEvents(sessionId);
  return events.map((event) => event.type);
}

describe("SessionHost.open", () => {
  test("two concurrent opens of one id share one open: one session, one session.resume", async () => {
    const id = await storedSession();
    expect(host.get(id)).toBeUndefined();
    const [first, second] = await Promise.all([host.open(id), host.open(id)]);
    expect(second).toBe(first);
    expect(host.get(id)).toBe(first);
    await host.close(first);
    expect(await eventTypes(id)).toEqual(["session.start", "session.resume"]);
  });

  test("an open session is handed out again without reopening; after close it reopens", async () => {
    const id = await storedSession();
    const opened = await host.open(id);
    expect(await host.open(id)).toBe(opened);
    await host.close(opened);
    expect(host.get(id)).toBeUndefined();
    const reopened = await host.open(id);
    expect(reopened).not.toBe(opened);
    expect(host.get(id)).toBe(reopened);
    await host.close(reopened);
    expect(await eventTypes(id)).toEqual(["session.start", "session.resume", "session.resume"]);
  });

  test("a session created here is found by get and by open", async () => {
    const created = await host.create(host.config.cwd.value, "openai-compatible:fake-model");
    expect(host.get(created.id)).toBe(created);
    expect(await host.open(created.id)).toBe(created);
  });

  test("concurrent opens of a missing session fail alike, and a later open tries again", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const results = await Promise.allSettled([host.open(missing), host.open(missing)]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(host.get(missing)).toBeUndefined();
    await expect(host.open(missing)).rejects.toThrow();
  });
});
