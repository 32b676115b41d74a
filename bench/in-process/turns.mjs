/** `turn-overhead` and its floor `turn-overhead-floor`. */

import { request as httpRequest } from "node:http";
import { BENCH_PROMPT } from "../scenario.mjs";
import { clientRequests, watchClientSockets } from "./client-stamps.mjs";
import {
  mainThreadSchedule,
  monotonicMilliseconds,
  openBenchSession,
  startFakeModelElsewhere,
  withSchedule,
} from "./support.mjs";

/**
 * Per-turn overhead: for each tool turn k, the gap between the end of response k and request k+1,
 * both stamped in this process (client-stamps.mjs: the last bytes of the answer read, the first
 * bytes of the next request handed to the OS), minus the `view` call's own time
 * (tool.execution_running → tool.execution_complete, seen by a subscriber: from when the tool
 * itself runs, so the permission gate and the log's checkpoint before it count as overhead) and
 * minus the
 * subscriber's own read of the CPU clock at the next `assistant.turn_start` (`harness`, a /proc
 * read of tens of microseconds here). `wireGap` is the same gap by the fake model's stamps (its
 * last byte written → the next request's headers parsed in its own process), which also holds
 * the fake model's wake-up. Also the spans inside the gap: response end → `assistant.turn_end`
 * seen, turn end → tool start, tool start → tool running, tool, tool end → next request written;
 * and, robust to a busy machine, the main thread's CPU time per turn without the tool's (from one
 * `assistant.turn_start` to the next, minus tool running → complete).
 * @param {{dist: string, cwd: string, home: string, turns: number}} options
 */
export async function turnOverhead(options) {
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  const sockets = watchClientSockets();
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: options.turns + 5,
    });
    /** @type {number[]} */
    const turnEnds = [];
    /** Main-thread CPU ms at each `assistant.turn_start`, and when its read began and ended. */
    const turnStartCpu = [];
    /** @type {Array<[number, number]>} */
    const turnStartRead = [];
    /** @type {Map<string, {start: number, running: number, complete: number, cpuRunning: number, cpuComplete: number}>} */
    const tools = new Map();
    const toolOrder = [];
    session.subscribe((event) => {
      const now = monotonicMilliseconds();
      if (event.type === "assistant.turn_start") {
        turnStartCpu.push(mainThreadSchedule().onCpu);
        turnStartRead.push([now, monotonicMilliseconds()]);
      } else if (event.type === "assistant.turn_end") {
        turnEnds.push(now);
      } else if (event.type === "tool.execution_start") {
        tools.set(event.data.toolCallId, {
          start: now,
          running: Number.NaN,
          complete: Number.NaN,
          cpuRunning: Number.NaN,
          cpuComplete: Number.NaN,
        });
        toolOrder.push(event.data.toolCallId);
      } else if (event.type === "tool.execution_running") {
        const tool = tools.get(event.data.toolCallId);
        if (tool !== undefined) {
          tool.running = now;
          // Read after the running stamp and before the complete's: inside the tool's time.
          tool.cpuRunning = mainThreadSchedule().onCpu;
        }
      } else if (event.type === "tool.execution_complete") {
        const tool = tools.get(event.data.toolCallId);
        if (tool !== undefined) {
          tool.cpuComplete = mainThreadSchedule().onCpu;
          tool.complete = monotonicMilliseconds();
        }
      }
    });
    const { result: outcome, schedule } = await withSchedule(() =>
      session.prompt(settings, BENCH_PROMPT),
    );
    await session.close();
    const requests = await model.requests();
    const client = clientRequests(sockets, model.url, requests.length);
    const samples = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      const tool = tools.get(toolOrder[turn] ?? "");
      const responseEnd = client[turn]?.lastRead ?? Number.NaN;
      const nextRequest = client[turn + 1]?.firstWrite ?? Number.NaN;
      if (tool === undefined) {
        continue;
      }
      const gap = nextRequest - responseEnd;
      const toolTime = tool.complete - tool.running;
      const harness = overlap(turnStartRead[turn + 1], responseEnd, nextRequest);
      samples.push({
        gap,
        wireGap:
          (requests[turn + 1]?.receivedAt ?? Number.NaN) -
          (requests[turn]?.finishedAt ?? Number.NaN),
        tool: toolTime,
        harness,
        overhead: gap - toolTime - harness,
        responseEndToTurnEnd: (turnEnds[turn] ?? Number.NaN) - responseEnd,
        turnEndToToolStart: tool.start - (turnEnds[turn] ?? Number.NaN),
        toolStartToRunning: tool.running - tool.start,
        toolEndToNextRequest: nextRequest - tool.complete,
        cpuPerTurnWithoutTool:
          (turnStartCpu[turn + 1] ?? Number.NaN) -
          (turnStartCpu[turn] ?? Number.NaN) -
          (tool.cpuComplete - tool.cpuRunning),
      });
    }
    const clientSockets = sockets.sockets(Number(new URL(model.url).port));
    return {
      outcome,
      requests: requests.length,
      clientRequests: client.length,
      clientSockets,
      samples,
      schedule,
    };
  } finally {
    sockets.stop();
    await model.close();
  }
}

/**
 * How much of `span` lies between `start` and `end` (ms; 0 without a span): a subscriber may be
 * handed an event after its request was written (src/session/held-delivery.ts).
 * @param {[number, number] | undefined} span @param {number} start @param {number} end
 */
function overlap(span, start, end) {
  return span === undefined ? 0 : Math.max(0, Math.min(span[1], end) - Math.max(span[0], start));
}

/** The one tool the floor offers: the fake model answers a request offering none with text. */
const FLOOR_TOOLS = [
  {
    type: "function",
    function: {
      name: "view",
      description: "Reads a file.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
];

/**
 * The floor of per-turn overhead: a tiny loop that makes the same chain of requests through
 * node:http's global agent, as turnloop's src/llm/http-fetch.ts does (it answers each `view` call
 * with a fixed result, no tool runs), reads each response to its end, and is stamped as
 * {@link turnOverhead} is (client-stamps.mjs; its read of the CPU clock before each request left
 * out of the gap as `harness`). `beforeRequest`, if given, is awaited before each request with its
 * index from 0 (turn-allocation.mjs starts its sampling there; then the sockets are not watched,
 * so that the floor's heap holds none of the stamps, and the gaps read NaN).
 * @param {{turns: number}} options
 * @param {(turn: number) => Promise<unknown> | undefined} [beforeRequest]
 */
export async function turnOverheadFloor(options, beforeRequest) {
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  const sockets = beforeRequest === undefined ? watchClientSockets() : undefined;
  try {
    const messages = [{ role: "user", content: BENCH_PROMPT }];
    const cpuAtTurn = [];
    /** @type {Array<[number, number]>} */
    const cpuRead = [];
    for (let turn = 0; turn <= options.turns; turn++) {
      await beforeRequest?.(turn);
      const readStart = monotonicMilliseconds();
      cpuAtTurn.push(mainThreadSchedule().onCpu);
      cpuRead.push([readStart, monotonicMilliseconds()]);
      const text = await postText(
        `${model.baseUrl}/chat/completions`,
        JSON.stringify({ model: "bench-model", messages, tools: FLOOR_TOOLS, stream: true }),
      );
      const callId = /"id":"(call_[^"]+)"/.exec(text)?.[1];
      if (callId === undefined) {
        break;
      }
      messages.push({
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: callId,
            type: "function",
            function: { name: "view", arguments: '{"path":"notes.md"}' },
          },
        ],
      });
      messages.push({ role: "tool", tool_call_id: callId, content: "1. line 1" });
    }
    const requests = await model.requests();
    const client = sockets === undefined ? [] : clientRequests(sockets, model.url, requests.length);
    const samples = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      const responseEnd = client[turn]?.lastRead ?? Number.NaN;
      const nextRequest = client[turn + 1]?.firstWrite ?? Number.NaN;
      const gap = nextRequest - responseEnd;
      const harness = overlap(cpuRead[turn + 1], responseEnd, nextRequest);
      const cpuPerTurnWithoutTool =
        (cpuAtTurn[turn + 1] ?? Number.NaN) - (cpuAtTurn[turn] ?? Number.NaN);
      samples.push({
        gap,
        wireGap:
          (requests[turn + 1]?.receivedAt ?? Number.NaN) -
          (requests[turn]?.finishedAt ?? Number.NaN),
        tool: 0,
        harness,
        overhead: gap - harness,
        cpuPerTurnWithoutTool,
      });
    }
    const clientSockets = sockets?.sockets(Number(new URL(model.url).port)) ?? 0;
    return { requests: requests.length, clientRequests: client.length, clientSockets, samples };
  } finally {
    sockets?.stop();
    await model.close();
  }
}

/**
 * POSTs a JSON `body` with node:http's global agent (keep-alive) and reads the answer as text.
 * @param {string} url @param {string} body
 * @returns {Promise<string>}
 */
function postText(url, body) {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("error", reject);
      response.on("end", () => resolve(text));
    });
    outgoing.end(body);
  });
}
