/**
 * A trial of round 3, session 43 (F4): after the Copilot SDK's `sessions.fork`, `session.list`
 * showed the fork with a `modifiedTime` before its `startTime`: the fork's copied events keep the
 * source's times, and its last activity was its last event's. A session's last activity is now
 * never before its start or an earlier event, in the listing the file store and PostgreSQL share
 * (session-metadata.ts), so the SDK's entry (`modifiedTime` ≥ `startTime`, Copilot's wire) holds.
 * The fork also had its source's summary (two identical rows); the Copilot wire describes no mark
 * of a fork, so its title says `(fork of <source id>)`.
 */

import { describe, expect, test } from "vitest";
import { sessionListEntry } from "../../src/server/state-methods.js";
import { forkSession } from "../../src/session/fork.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { buildEvents, makeTemporaryDirectory } from "./support.js";

describe("a fork in the listing", () => {
  test("its modifiedTime is its start, not the copied events' earlier times; its summary says it is a fork", async () => {
    const home = await makeTemporaryDirectory();
    const store = openSessionStore(home);
    const source = buildEvents([
      {
        type: "session.start",
        data: {
          sessionId: "source",
          version: 1,
          producer: "turnloop",
          producerVersion: "0.1.0",
          startTime: "2026-03-01T10:00:00.000Z",
          cwd: home,
          model: "openai:gpt-5",
        },
      },
      { type: "user.message", data: { content: "RUN: echo sdk-hello", source: "user" } },
      { type: "assistant.turn_start", data: { turnId: "t1" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "t1", status: "completed", stopReason: "end_turn" },
      },
    ]);
    const forkId = await forkSession(store, source);
    const fork = (await store.list()).find((summary) => summary.sessionId === forkId);
    if (fork === undefined) {
      throw new Error("the fork is not listed");
    }
    const entry = sessionListEntry(fork);
    expect(entry).toEqual({
      sessionId: forkId,
      startTime: fork.startTime,
      modifiedTime: fork.startTime,
      isRemote: false,
      // Told apart from its source, which has the same first prompt.
      summary: "(fork of source) RUN: echo sdk-hello",
      context: { cwd: home },
      model: "openai:gpt-5",
      turns: 1,
    });
    expect(Date.parse(entry.startTime) > Date.parse("2026-03-01T10:00:03.000Z")).toBe(true);
  });
});
