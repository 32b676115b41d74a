import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { eventsPath } from "../../src/session/paths.js";
import { fixtureForFile } from "../sdk/support.js";
import { prose } from "../support/huge-answer.js";
import { spawnServer } from "./raw-peer.js";

/**
 * Issue 26 (bench/notes/memory31.md): a server session's `session.shutdown` carries metrics of
 * its whole log, folded as its events arrived (src/session/usage-totals.ts `SessionMetrics`); the shutdown
 * reads none of the log again. It read all of it before, a reply of many MB decoded again at exit.
 * Read by what the kernel counts of the server's reads (`rchar` of /proc/<pid>/io: files and
 * pipes), Linux only.
 */

const fixture = fixtureForFile();
const REPLY_BYTES = 2_000_000;

/** Bytes the process `pid` has read so far (files, pipes, sockets). */
async function bytesRead(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, "utf8");
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

const isEvent = (type: string) => (message: { method?: string; params?: unknown }) =>
  message.method === "session.event" &&
  (message.params as { event: { type: string } }).event.type === type;

/** A served session whose one reply is {@link REPLY_BYTES} long, idle; its server's pid. */
async function sessionWithALongReply() {
  const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
  const pid = child.pid ?? 0;
  await peer.request("connect", {});
  const created = await peer.request("session.create", {});
  const { sessionId } = created.result as { sessionId: string };
  const answer = prose(REPLY_BYTES, "END.");
  const pieces: string[] = [];
  for (let at = 0; at < answer.length; at += 100_000) {
    pieces.push(answer.slice(at, at + 100_000));
  }
  fixture.model.enqueue({ text: pieces, usage: { input: 12, output: 34 } });
  await peer.request("session.send", { sessionId, prompt: "write a lot" });
  await peer.waitFor(isEvent("session.idle"), 60_000);
  return { child, peer, exit, pid, sessionId, answer };
}

describe.runIf(process.platform === "linux")("session.shutdown of a server session", () => {
  test("reads nothing of the log: a 2 MB reply's session ends with its metrics and under 64 KiB read", async () => {
    const { child, peer, exit, pid, sessionId, answer } = await sessionWithALongReply();
    const before = await bytesRead(pid);
    const ended = await peer.request("session.shutdown", { sessionId, type: "routine" });
    const after = await bytesRead(pid);
    expect(ended.result).toEqual({ success: true });

    const shutdown = await peer.waitFor(isEvent("session.shutdown"));
    const log = await readEventLog(eventsPath(fixture.home, sessionId));
    const stored = log.events.at(-1);
    expect(stored?.type).toBe("session.shutdown");
    const start = log.events[0];
    const turnStart = log.events.find((event) => event.type === "assistant.turn_start");
    const reply = log.events.find((event) => event.type === "assistant.message");
    expect((shutdown.params as { event: { data: unknown } }).event.data).toEqual({
      shutdownType: "routine",
      sessionStartTime: Date.parse(start?.type === "session.start" ? start.data.startTime : ""),
      totalApiDurationMs:
        Date.parse(reply?.timestamp ?? "") - Date.parse(turnStart?.timestamp ?? ""),
      modelMetrics: {
        "fake-model": {
          requests: { count: 1, cost: 0 },
          usage: { inputTokens: 12, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      },
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
      currentModel: "fake-model",
      currentTokens: expect.any(Number),
      eventsFileSizeBytes: expect.any(Number),
    });
    // The log holds the reply whole; the shutdown read the request's frame and little else.
    expect(reply?.type === "assistant.message" && reply.data.content).toBe(answer);
    expect(after - before).toBeLessThan(64 * 1024);
    child.stdin.end();
    expect(await exit).toBe(0);
  }, 120_000);
});

describe.runIf(process.platform === "linux")("session.usage.getMetrics of an open session", () => {
  // Round 3, session 32: each call read and decoded the whole log (a 2 MB reply's, here); it is
  // answered from the session's own fold now, as session.shutdown is.
  test("reads nothing of the log: three calls answer the totals with under 64 KiB read", async () => {
    const { child, peer, exit, pid, sessionId } = await sessionWithALongReply();
    const before = await bytesRead(pid);
    const answers = [];
    for (let call = 0; call < 3; call += 1) {
      answers.push((await peer.request("session.usage.getMetrics", { sessionId })).result);
    }
    const after = await bytesRead(pid);
    const usage = { inputTokens: 12, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const metrics = {
      totalPremiumRequestCost: 0,
      totalUserRequests: 1,
      totalApiDurationMs: expect.any(Number),
      sessionStartTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [], filesModifiedCount: 0 },
      modelMetrics: { "fake-model": { requests: { count: 1, cost: 0 }, usage } },
      lastCallInputTokens: 12,
      lastCallOutputTokens: 34,
      ...usage,
      requests: 1,
    };
    expect(answers).toEqual([metrics, metrics, metrics]);
    expect(after - before).toBeLessThan(64 * 1024);
    child.stdin.end();
    expect(await exit).toBe(0);
  }, 120_000);
});
