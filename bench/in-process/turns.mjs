/** `turn-overhead` and its floor `turn-overhead-floor`. */

import { BENCH_PROMPT } from "../scenario.mjs";
import {
  mainThreadSchedule,
  monotonicMilliseconds,
  openBenchSession,
  startFakeModelElsewhere,
  withSchedule,
} from "./support.mjs";

/**
 * Per-turn overhead: for each tool turn k, the gap between the end of response k (the fake server
 * handed its last byte to the OS) and the arrival of request k+1, minus the `view` call's own time
 * (tool.execution_start → tool.execution_complete, seen by a subscriber). Also the spans inside the
 * gap: response end → `assistant.turn_end` seen, turn end → tool start, tool, tool end → next
 * request arrived; and, robust to a busy machine, the main thread's CPU time per turn without the
 * tool's (from one `assistant.turn_start` to the next, minus tool start → complete).
 * @param {{dist: string, cwd: string, home: string, turns: number}} options
 */
export async function turnOverhead(options) {
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: options.turns + 5,
    });
    /** @type {number[]} */
    const turnEnds = [];
    /** Main-thread CPU ms at each `assistant.turn_start`. */
    const turnStartCpu = [];
    /** @type {Map<string, {start: number, complete: number, cpuStart: number, cpuComplete: number}>} */
    const tools = new Map();
    const toolOrder = [];
    session.subscribe((event) => {
      const now = monotonicMilliseconds();
      if (event.type === "assistant.turn_start") {
        turnStartCpu.push(mainThreadSchedule().onCpu);
      } else if (event.type === "assistant.turn_end") {
        turnEnds.push(now);
      } else if (event.type === "tool.execution_start") {
        const cpuStart = mainThreadSchedule().onCpu;
        tools.set(event.data.toolCallId, {
          start: now,
          complete: Number.NaN,
          cpuStart,
          cpuComplete: Number.NaN,
        });
        toolOrder.push(event.data.toolCallId);
      } else if (event.type === "tool.execution_complete") {
        const tool = tools.get(event.data.toolCallId);
        if (tool !== undefined) {
          tool.complete = now;
          tool.cpuComplete = mainThreadSchedule().onCpu;
        }
      }
    });
    const { result: outcome, schedule } = await withSchedule(() =>
      session.prompt(settings, BENCH_PROMPT),
    );
    await session.close();
    const requests = await model.requests();
    const samples = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      const response = requests[turn];
      const next = requests[turn + 1];
      const tool = tools.get(toolOrder[turn] ?? "");
      if (response === undefined || next === undefined || tool === undefined) {
        continue;
      }
      const gap = next.receivedAt - response.finishedAt;
      const toolTime = tool.complete - tool.start;
      samples.push({
        gap,
        tool: toolTime,
        overhead: gap - toolTime,
        responseEndToTurnEnd: (turnEnds[turn] ?? Number.NaN) - response.finishedAt,
        turnEndToToolStart: tool.start - (turnEnds[turn] ?? Number.NaN),
        toolEndToNextRequest: next.receivedAt - tool.complete,
        cpuPerTurnWithoutTool:
          (turnStartCpu[turn + 1] ?? Number.NaN) -
          (turnStartCpu[turn] ?? Number.NaN) -
          (tool.cpuComplete - tool.cpuStart),
      });
    }
    return { outcome, requests: requests.length, samples, schedule };
  } finally {
    await model.close();
  }
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
 * The floor of per-turn overhead: a tiny fetch loop that makes the same chain of requests (it
 * answers each `view` call with a fixed result, no tool runs) and reads each response to its end.
 * `beforeRequest`, if given, is awaited before each request with its index from 0
 * (turn-allocation.mjs starts its sampling there).
 * @param {{turns: number}} options
 * @param {(turn: number) => Promise<unknown> | undefined} [beforeRequest]
 */
export async function turnOverheadFloor(options, beforeRequest) {
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  try {
    const messages = [{ role: "user", content: BENCH_PROMPT }];
    const cpuAtTurn = [];
    for (let turn = 0; turn <= options.turns; turn++) {
      await beforeRequest?.(turn);
      cpuAtTurn.push(mainThreadSchedule().onCpu);
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench-model", messages, tools: FLOOR_TOOLS, stream: true }),
      });
      const text = await response.text();
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
    const samples = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      const gap = requests[turn + 1].receivedAt - requests[turn].finishedAt;
      const cpuPerTurnWithoutTool =
        (cpuAtTurn[turn + 1] ?? Number.NaN) - (cpuAtTurn[turn] ?? Number.NaN);
      samples.push({ gap, tool: 0, overhead: gap, cpuPerTurnWithoutTool });
    }
    return { requests: requests.length, samples };
  } finally {
    await model.close();
  }
}
