/** `generate-session`, `resume` and `memory`: long logs and long sessions. */

import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";
import { collectGarbageReturned, exactResidentBytes, memoryDetail } from "./memory-detail.mjs";
import {
  collectGarbage,
  importDist,
  monotonicMilliseconds,
  openBenchSession,
  startFakeModelElsewhere,
  withSchedule,
} from "./support.mjs";

/**
 * Writes a realistic `events.jsonl` of about `events` events with the log's own envelope and
 * serializer: user messages every 10 turns, assistant turns with 1–3 tool calls (view, grep, bash
 * with a permission request), usage, results of 0.3–3 KB, and a text answer ending each prompt.
 * With `compactEvery` (turns, a multiple of 10), a compaction after every that many turns (its
 * start, summary turn and completion, as the loop logs them) replaces the whole view by a summary.
 * @param {{dist: string, home: string, events: number, compactEvery?: number}} options
 */
export async function generateSession(options) {
  const [{ createEnvelope, serializeEvent }, { eventsPath, newSessionId }] = await Promise.all([
    importDist(options.dist, "session/event-log.js"),
    importDist(options.dist, "session/paths.js"),
  ]);
  const sessionId = newSessionId();
  const path = eventsPath(options.home, sessionId);
  mkdirSync(join(path, ".."), { recursive: true });
  const lines = [];
  let parentId = null;
  let time = Date.UTC(2026, 0, 1);
  /** @param {{type: string, data: object}} input */
  const add = (input) => {
    time += 137;
    const event = createEnvelope(input, parentId, new Date(time));
    parentId = event.id;
    lines.push(serializeEvent(event));
  };
  const fileLines = (count, seed) =>
    Array.from(
      { length: count },
      (_, index) =>
        `${index + 1}. export function handler${seed}_${index}(input) { return input.value * ${index}; }`,
    ).join("\n");
  add({
    type: "session.start",
    data: {
      sessionId,
      version: 1,
      producer: "turnloop",
      producerVersion: "0.1.0",
      startTime: new Date(time).toISOString(),
      cwd: "/home/user/project",
      model: BENCH_MODEL,
    },
  });
  let turn = 0;
  /** Messages in the model's view, for a compaction's `messagesRemoved`. */
  let viewMessages = 0;
  while (lines.length < options.events) {
    if (options.compactEvery !== undefined && turn > 0 && turn % options.compactEvery === 0) {
      addCompaction(add, viewMessages);
      // The summary and the latest user message, which the summary removed.
      viewMessages = 2;
    }
    if (turn % 10 === 0) {
      viewMessages += 1;
      add({
        type: "user.message",
        data: {
          content: `Please look at part ${turn / 10} of the code and fix it.`,
          source: "user",
        },
      });
    }
    const turnId = randomUUID();
    const messageId = randomUUID();
    add({ type: "assistant.turn_start", data: { turnId } });
    const last = turn % 10 === 9;
    const calls = last
      ? []
      : Array.from({ length: 1 + (turn % 3) }, (_, index) => {
          const kind = (turn + index) % 3;
          const toolCallId = `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
          if (kind === 0) {
            return { toolCallId, name: "view", arguments: { path: `src/module${turn % 50}.ts` } };
          }
          if (kind === 1) {
            return {
              toolCallId,
              name: "grep",
              arguments: { pattern: `handler${turn}`, path: "src" },
            };
          }
          return { toolCallId, name: "bash", arguments: { command: "npm test -- --run unit" } };
        });
    add({
      type: "assistant.message",
      data: {
        messageId,
        content: last
          ? `Done: part ${Math.floor(turn / 10)} is fixed. I changed the handler to check its input and added a test; the suite passes.`
          : "Let me look at the relevant code first.",
        toolRequests: calls,
        finishReason: last ? "stop" : "tool-calls",
      },
    });
    viewMessages += 1 + calls.length;
    add({
      type: "assistant.usage",
      data: {
        model: BENCH_MODEL,
        turnId,
        inputTokens: 4_000 + turn * 50,
        outputTokens: 120,
        cacheReadTokens: 3_500 + turn * 50,
        cacheWriteTokens: 0,
      },
    });
    add({
      type: "assistant.turn_end",
      data: { turnId, status: "completed", finishReason: last ? "stop" : "tool-calls" },
    });
    for (const call of calls) {
      add({
        type: "tool.execution_start",
        data: { toolCallId: call.toolCallId, toolName: call.name, arguments: call.arguments },
      });
      if (call.name === "bash") {
        const requestId = randomUUID();
        add({
          type: "permission.requested",
          data: {
            requestId,
            toolCallId: call.toolCallId,
            toolName: "bash",
            kind: "execute",
            title: "Run npm test -- --run unit",
          },
        });
        add({
          type: "permission.completed",
          data: { requestId, toolCallId: call.toolCallId, decision: "allowed", scope: "once" },
        });
      }
      const content =
        call.name === "view"
          ? fileLines(40, turn)
          : call.name === "grep"
            ? `src/module${turn % 50}.ts\nsrc/module${(turn + 1) % 50}.ts`
            : `> turnloop@0.1.0 test\n\n ✓ test/unit.test.ts (12 tests) 31ms\n\nTest Files  1 passed (1)\n     Tests  12 passed (12)\nexit code 0`;
      add({
        type: "tool.execution_complete",
        data: {
          toolCallId: call.toolCallId,
          toolName: call.name,
          success: true,
          result: { content },
        },
      });
    }
    turn++;
  }
  writeFileSync(path, lines.join(""));
  return { sessionId, path, events: lines.length, bytes: statSync(path).size };
}

/**
 * The events of a successful automatic compaction of the whole view (`messagesRemoved`
 * messages): start, summary turn (its reply is not logged), completion.
 * @param {(input: {type: string, data: object}) => void} add
 * @param {number} messagesRemoved
 */
function addCompaction(add, messagesRemoved) {
  const turnId = randomUUID();
  const tokens = { preCompactionTokens: 150_000, postCompactionTokens: 2_000 };
  add({
    type: "session.compaction_start",
    data: { trigger: "auto", currentTokens: tokens.preCompactionTokens, tokenLimit: 200_000 },
  });
  add({ type: "assistant.turn_start", data: { turnId, purpose: "compaction" } });
  add({
    type: "assistant.usage",
    data: { model: BENCH_MODEL, turnId, inputTokens: 150_000, outputTokens: 1_500 },
  });
  add({
    type: "assistant.turn_end",
    data: { turnId, status: "completed", finishReason: "stop" },
  });
  add({
    type: "session.compaction_complete",
    data: {
      success: true,
      trigger: "auto",
      ...tokens,
      messagesRemoved,
      summaryContent: `The user asked for fixes to the code, part by part. ${"Fixed a handler and added its test. ".repeat(100)}`,
    },
  });
}

/**
 * Resume: first the floor (read the file, split lines, `JSON.parse` each), then `Session.resume`
 * on the same (now cached) file, with the heap before and after.
 * @param {{dist: string, home: string, sessionId: string}} options
 */
export async function resumeSession(options) {
  const [{ Session }, { eventsPath }, { openSessionStore }] = await Promise.all([
    importDist(options.dist, "session/session.js"),
    importDist(options.dist, "session/paths.js"),
    importDist(options.dist, "session/open-store.js"),
  ]);
  const path = eventsPath(options.home, options.sessionId);
  const floorStart = monotonicMilliseconds();
  const text = readFileSync(path, "utf8");
  let parsed = 0;
  for (const line of text.split("\n")) {
    if (line !== "") {
      JSON.parse(line);
      parsed++;
    }
  }
  const floorMilliseconds = monotonicMilliseconds() - floorStart;
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = monotonicMilliseconds();
  const session = await Session.resume(openSessionStore(options.home), options.sessionId);
  const resumeMilliseconds = monotonicMilliseconds() - start;
  collectGarbageReturned();
  const memory = process.memoryUsage();
  await session.close();
  return {
    events: parsed,
    bytes: Buffer.byteLength(text),
    floorMilliseconds,
    resumeMilliseconds,
    heapRetainedBytes: memory.heapUsed - heapBefore,
    rssBytes: exactResidentBytes() ?? memory.rss,
    historyMessages: session.history.messages.length,
  };
}

/**
 * Memory over a long session: one prompt of `turns` model turns (`turns - 1` view calls and an
 * answer). Every `turns / samples` turns, after a full GC, records heap, RSS and the log's size;
 * also the per-turn overhead over the session (server-side gaps minus tool time). With
 * `contextWindow` (tokens, `--context-window`) the session compacts whenever it nears that window
 * (counted in `compactions`); each compaction's summary starts a new count of view calls, so
 * such a session ends at `maxTurns` rather than with an answer. With `mappings`, each sample's
 * detail lists every anonymous mapping (memory-detail.mjs `memoryDetail`).
 * @param {{dist: string, cwd: string, home: string, turns: number, samples: number,
 *   contextWindow?: number, mappings?: boolean}} options
 */
export async function memory(options) {
  const model = await startFakeModelElsewhere({
    toolTurns: options.turns - 1,
    answerDeltas: 8,
    keepBodies: 0,
  });
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: options.turns + 5,
    });
    const logPath = join(session.directory, "events.jsonl");
    const every = Math.max(1, Math.floor(options.turns / options.samples));
    const points = [];
    let turns = 0;
    let compactions = 0;
    /** @type {Map<string, number>} */
    const toolStarts = new Map();
    const toolTimes = [];
    // After a full GC whose freed pages are returned, the exact RSS (memory-detail.mjs).
    const sample = () => {
      collectGarbageReturned();
      const detail = memoryDetail({ mappings: options.mappings });
      points.push({
        turn: turns,
        heapUsed: detail.heapUsed,
        heapTotal: detail.heapTotal,
        rss: detail.rss,
        external: detail.external + detail.arrayBuffers,
        logBytes: statSync(logPath).size,
        detail,
      });
    };
    sample();
    session.subscribe((event) => {
      if (event.type === "assistant.turn_end") {
        turns++;
        if (turns % every === 0) {
          sample();
        }
      } else if (event.type === "session.compaction_complete") {
        compactions++;
      } else if (event.type === "tool.execution_start") {
        toolStarts.set(event.data.toolCallId, monotonicMilliseconds());
      } else if (event.type === "tool.execution_complete") {
        toolTimes.push(monotonicMilliseconds() - (toolStarts.get(event.data.toolCallId) ?? 0));
        // The benchmark's own memory counts in 5b/5c: one entry a turn, kept, was about 0.1 KiB.
        toolStarts.delete(event.data.toolCallId);
      }
    });
    const { result: outcome, schedule } = await withSchedule(() =>
      session.prompt(settings, BENCH_PROMPT),
    );
    const wallMilliseconds = schedule.wallMilliseconds;
    await session.close();
    const requests = await model.requests();
    const overheads = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      overheads.push(
        requests[turn + 1].receivedAt - requests[turn].finishedAt - (toolTimes[turn] ?? 0),
      );
    }
    return {
      outcome,
      turns,
      compactions,
      wallMilliseconds,
      points,
      lastRequestBytes: requests.at(-1)?.bytes ?? 0,
      overheads,
      schedule,
    };
  } finally {
    await model.close();
  }
}
