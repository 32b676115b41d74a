/**
 * In-process benchmarks over the compiled `dist/` modules. Each one runs in a fresh process so
 * that runs do not warm each other up:
 *
 *   node --expose-gc bench/in-process.mjs <benchmark> '<options as JSON>'
 *
 * It prints one JSON line with its measurements on stdout. `bench/run.mjs` drives it; it can also
 * be run by hand while working on one figure. Spans are measured with the machine's monotonic clock
 * (see `monotonicMilliseconds` in fake-model.mjs), the same clock the fake model server stamps its
 * requests with, so client-side and server-side moments can be subtracted.
 *
 * Benchmarks (options in brackets):
 * - `turn-overhead` [dist, cwd, home, turns]: one prompt of `turns` tool turns and an answer; per turn,
 *   the gap between the end of a model response and the arrival of the next request, and the tool's
 *   own time inside that gap.
 * - `turn-overhead-floor` [turns]: the same requests made by a tiny fetch loop.
 * - `relay` [dist, cwd, home, deltas, tokensPerSecond]: a streamed answer of `deltas` text deltas,
 *   timed at a session subscriber.
 * - `relay-floor` [deltas, tokensPerSecond]: the same stream read by a tiny fetch + SSE parser.
 * - `relay-layers` [dist, cwd, home, deltas]: deltas/s through each layer in turn (fetch + SSE
 *   parse, AI SDK `doStream`, AI SDK with our fetch wrapper, our Provider, a Session), to show
 *   which layer costs what.
 * - `request-layers` [dist, cwd, home, requests, rounds]: CPU and wall time of one short model
 *   request through each of those layers.
 * - `generate-session` [dist, home, events]: writes a realistic `events.jsonl` of `events` events.
 * - `resume` [dist, home, sessionId]: times `Session.resume` on it, after a floor (read + parse).
 * - `memory` [dist, cwd, home, turns, samples]: heap and RSS over a session of `turns` model turns.
 * - `import` [specifier]: time and memory of importing one module in a fresh process.
 * - `rss-breakdown` [dist]: RSS and heap after each layer of turnloop is imported, in order.
 * - `module-count` [specifiers]: the ES modules that importing `specifiers` loads, per package.
 */

import { randomUUID } from "node:crypto";
import { mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_MODEL, BENCH_PROMPT } from "./scenario.mjs";

/** Monotonic ms, the clock of fake-model.mjs (kept here so `import` and `rss-breakdown` load nothing more). */
function monotonicMilliseconds() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Starts the fake model in a child process, so that neither its CPU nor its memory counts in this
 * process (imported on use, for the same reason as above).
 * @param {import("./fake-model.mjs").FakeModelOptions} options
 */
async function startFakeModelElsewhere(options) {
  const { startFakeModelProcess } = await import("./fake-model.mjs");
  return startFakeModelProcess(options);
}

/**
 * Imports a compiled module of turnloop.
 * @param {string} dist Absolute path of `dist/`.
 * @param {string} path Module path inside `dist/`, e.g. `session/session.js`.
 */
function importDist(dist, path) {
  return import(pathToFileURL(join(dist, path)).href);
}

/**
 * The main thread's scheduler times from /proc (`schedstat`): time on a CPU and time spent
 * runnable but waiting for one, in ms. On a busy machine the second one is the time lost to others.
 * @returns {{onCpu: number, waiting: number}}
 */
function mainThreadSchedule() {
  try {
    scheduleFile ??= openSync(`/proc/self/task/${process.pid}/schedstat`, "r");
    const length = readSync(scheduleFile, scheduleBuffer, 0, scheduleBuffer.length, 0);
    const [onCpu, waiting] = scheduleBuffer.toString("latin1", 0, length).split(" ").map(Number);
    return { onCpu: (onCpu ?? Number.NaN) / 1e6, waiting: (waiting ?? Number.NaN) / 1e6 };
  } catch {
    return { onCpu: Number.NaN, waiting: Number.NaN };
  }
}

/** Kept open: a positioned read of /proc costs a few microseconds, an open + read + close more. */
let scheduleFile;
const scheduleBuffer = Buffer.alloc(128);

/**
 * Runs `work` and reports, besides its result, the share of the wall time in which the main
 * thread was waiting for a CPU.
 * @template T
 * @param {() => Promise<T>} work
 * @returns {Promise<{result: T, schedule: {wallMilliseconds: number, onCpuMilliseconds: number,
 *   waitingMilliseconds: number}}>}
 */
async function withSchedule(work) {
  const before = mainThreadSchedule();
  const start = monotonicMilliseconds();
  const result = await work();
  const wallMilliseconds = monotonicMilliseconds() - start;
  const after = mainThreadSchedule();
  return {
    result,
    schedule: {
      wallMilliseconds,
      onCpuMilliseconds: after.onCpu - before.onCpu,
      waitingMilliseconds: after.waiting - before.waiting,
    },
  };
}

/** Runs the garbage collector when the process was started with `--expose-gc`. */
function collectGarbage() {
  const gc = /** @type {undefined | (() => void)} */ (globalThis.gc);
  if (gc !== undefined) {
    gc();
    gc();
  }
}

/**
 * Opens a new session with the settings the CLI would use for `-p`, against the fake model.
 * @param {{dist: string, cwd: string, home: string, baseUrl: string, maxTurns: number}} options
 */
async function openBenchSession(options) {
  const [{ Session }, { agentSettingsFor }, { resolveModel }, { parseCommand }, faceSettings] =
    await Promise.all([
      importDist(options.dist, "session/session.js"),
      importDist(options.dist, "session/agent-settings.js"),
      importDist(options.dist, "llm/models.js"),
      importDist(options.dist, "cli/arguments.js"),
      importDist(options.dist, "cli/face-settings.js"),
    ]);
  const resolved = resolveModel({ model: BENCH_MODEL, baseUrl: options.baseUrl }, {});
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const command = parseCommand(
    ["-p", BENCH_PROMPT, "--max-turns", String(options.maxTurns)],
    options.cwd,
  );
  const sessionOptions = faceSettings.sessionOptionsFrom(
    command.options,
    resolved.configuration,
    {},
    { noAskReason: "benchmark: no one to ask" },
  );
  const session = await Session.create(options.home, options.cwd, resolved.configuration.id);
  const settings = agentSettingsFor(session, sessionOptions);
  return { session, settings };
}

/**
 * Per-turn overhead: for each tool turn k, the gap between the end of response k (the fake server
 * handed its last byte to the OS) and the arrival of request k+1, minus the `view` call's own time
 * (tool.execution_start → tool.execution_complete, seen by a subscriber). Also the spans inside the
 * gap: response end → `assistant.turn_end` seen, turn end → tool start, tool, tool end → next
 * request arrived; and, robust to a busy machine, the main thread's CPU time per turn without the
 * tool's (from one `assistant.turn_start` to the next, minus tool start → complete).
 * @param {{dist: string, cwd: string, home: string, turns: number}} options
 */
async function turnOverhead(options) {
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

/**
 * The floor of per-turn overhead: a tiny fetch loop that makes the same chain of requests (it
 * answers each `view` call with a fixed result, no tool runs) and reads each response to its end.
 * @param {{turns: number}} options
 */
async function turnOverheadFloor(options) {
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  try {
    const messages = [{ role: "user", content: BENCH_PROMPT }];
    const cpuAtTurn = [];
    for (let turn = 0; turn <= options.turns; turn++) {
      cpuAtTurn.push(mainThreadSchedule().onCpu);
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench-model", messages, stream: true }),
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

/**
 * Streaming relay through a session: deltas/s at a subscriber (first to last delta) and, per
 * delta, the time from the fake server's write to the subscriber's `assistant.message_delta`.
 * @param {{dist: string, cwd: string, home: string, deltas: number, tokensPerSecond: number}} options
 */
async function relay(options) {
  const model = await startFakeModelElsewhere({
    toolTurns: 0,
    answerDeltas: options.deltas,
    tokensPerSecond: options.tokensPerSecond,
    recordDeltaTimes: true,
    numberedDeltas: true,
  });
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: 5,
    });
    // One `assistant.message_delta` per model delta, in order: record times only, parse later.
    const received = new Float64Array(options.deltas);
    const texts = [];
    let count = 0;
    session.subscribe((event) => {
      if (event.type === "assistant.message_delta" && count < received.length) {
        received[count++] = monotonicMilliseconds();
        texts.push(event.data.deltaContent);
      }
    });
    const { result: outcome, schedule } = await withSchedule(() =>
      session.prompt(settings, BENCH_PROMPT),
    );
    await session.close();
    const [request] = await model.requests();
    const arrivals = [...received.subarray(0, count)].map((at, index) => ({
      number: Number(/w(\d+)/.exec(texts[index] ?? "")?.[1] ?? Number.NaN),
      at,
    }));
    return { ...relayFigures(outcome, arrivals, request), schedule };
  } finally {
    await model.close();
  }
}

/**
 * The floor of the relay: the same stream read with fetch and a minimal SSE parser (split on blank
 * lines, `JSON.parse` each `data:`), timing each text delta.
 * @param {{deltas: number, tokensPerSecond: number}} options
 */
async function relayFloor(options) {
  const model = await startFakeModelElsewhere({
    toolTurns: 0,
    answerDeltas: options.deltas,
    tokensPerSecond: options.tokensPerSecond,
    recordDeltaTimes: true,
    numberedDeltas: true,
  });
  try {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "bench-model",
        messages: [{ role: "user", content: BENCH_PROMPT }],
        stream: true,
      }),
    });
    if (response.body === null) {
      throw new Error("no response body");
    }
    /** @type {Array<{number: number, at: number}>} */
    const received = [];
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf("\n\n");
        if (!frame.startsWith("data: ") || frame === "data: [DONE]") {
          continue;
        }
        const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
        if (typeof content === "string" && content !== "") {
          received.push({
            number: Number(/w(\d+)/.exec(content)?.[1]),
            at: monotonicMilliseconds(),
          });
        }
      }
    }
    const [request] = await model.requests();
    return relayFigures({ stopReason: "end_turn" }, received, request);
  } finally {
    await model.close();
  }
}

/**
 * Throughput and per-delta latency of a relay, from the server's write times and the reader's
 * arrival times of the numbered deltas.
 * @param {unknown} outcome
 * @param {Array<{number: number, at: number}>} received Deltas as they reached the reader.
 * @param {import("./fake-model.mjs").RecordedRequest | undefined} request
 */
export function relayFigures(outcome, received, request) {
  const written = request?.deltaWrittenAt ?? [];
  const latencies = received.map(({ number, at }) => at - (written[number] ?? Number.NaN));
  const first = received[0]?.at ?? Number.NaN;
  const last = received.at(-1)?.at ?? Number.NaN;
  const serverFirst = written[0] ?? Number.NaN;
  const serverLast = written.at(-1) ?? Number.NaN;
  return {
    outcome,
    deltasReceived: received.length,
    deltasWritten: written.length,
    deltasPerSecond: received.length > 1 ? ((received.length - 1) * 1000) / (last - first) : 0,
    serverDeltasPerSecond:
      written.length > 1 ? ((written.length - 1) * 1000) / (serverLast - serverFirst) : 0,
    latencies,
  };
}

/**
 * The layers between the model's HTTP stream and a session subscriber, each as a function that
 * makes one request and returns the arrival times of its text deltas: (1) fetch + a minimal SSE
 * parser, (2) the AI SDK's OpenAI-compatible `doStream` with plain fetch, (3) the same with
 * turnloop's fetch wrapper (`openAiChatQuirksFetch`), (4) turnloop's Provider
 * (`createProvider(…).stream`), (5) a prompt of one turn in a Session with one subscriber.
 * Models, provider and session are made once per `baseUrl` and reused, as a long-lived agent would.
 * @param {{dist: string, cwd: string, home: string}} options
 * @param {string} baseUrl
 * @returns {Promise<Record<string, () => Promise<number[]>>>}
 */
async function makeLayers(options, baseUrl) {
  const [{ createOpenAICompatible }, { openAiChatQuirksFetch }, { createProvider, resolveModel }] =
    await Promise.all([
      import("@ai-sdk/openai-compatible"),
      importDist(options.dist, "llm/openai-chat-quirks.js"),
      importDist(options.dist, "llm/models.js"),
    ]);
  const userPrompt = [{ role: "user", content: [{ type: "text", text: BENCH_PROMPT }] }];
  /** @param {typeof fetch | undefined} fetchFunction */
  const sdkLayer = (fetchFunction) => {
    const chat = createOpenAICompatible({
      name: "bench",
      baseURL: baseUrl,
      includeUsage: true,
      ...(fetchFunction === undefined ? {} : { fetch: fetchFunction }),
    }).chatModel("bench-model");
    return async () => {
      const { stream } = await chat.doStream({ prompt: userPrompt });
      const times = [];
      for await (const part of stream) {
        if (part.type === "text-delta") {
          times.push(monotonicMilliseconds());
        }
      }
      return times;
    };
  };
  const resolved = resolveModel({ model: BENCH_MODEL, baseUrl }, {});
  const provider = createProvider(resolved.configuration);
  /** @type {Awaited<ReturnType<typeof openBenchSession>> | undefined} */
  let opened;
  const { request: httpRequest, Agent } = await import("node:http");
  const agent = new Agent({ keepAlive: true });
  return {
    "node:http + SSE parse (floor without fetch)": () =>
      new Promise((resolveTimes, reject) => {
        const body = JSON.stringify({ model: "bench-model", messages: [], stream: true });
        const outgoing = httpRequest(
          `${baseUrl}/chat/completions`,
          { method: "POST", agent, headers: { "content-type": "application/json" } },
          (response) => {
            const times = [];
            let buffer = "";
            response.setEncoding("utf8");
            response.on("data", (text) => {
              buffer += text;
              let boundary = buffer.indexOf("\n\n");
              while (boundary !== -1) {
                const frame = buffer.slice(0, boundary);
                buffer = buffer.slice(boundary + 2);
                boundary = buffer.indexOf("\n\n");
                if (frame.startsWith("data: {")) {
                  const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
                  if (typeof content === "string" && content !== "") {
                    times.push(monotonicMilliseconds());
                  }
                }
              }
            });
            response.on("end", () => resolveTimes(times));
            response.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      }),
    "fetch + SSE parse (floor)": async () => {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench-model", messages: [], stream: true }),
      });
      const times = [];
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body ?? []) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf("\n\n");
          if (frame.startsWith("data: {")) {
            const content = JSON.parse(frame.slice(6)).choices?.[0]?.delta?.content;
            if (typeof content === "string" && content !== "") {
              times.push(monotonicMilliseconds());
            }
          }
        }
      }
      return times;
    },
    "AI SDK doStream (plain fetch)": sdkLayer(undefined),
    "AI SDK doStream + openAiChatQuirksFetch": sdkLayer(openAiChatQuirksFetch),
    "turnloop Provider.stream": async () => {
      const times = [];
      const request = {
        system: "You are a benchmark.",
        messages: [{ role: "user", content: BENCH_PROMPT }],
        tools: [],
      };
      for await (const event of provider.stream(request, new AbortController().signal)) {
        if (event.type === "text_delta") {
          times.push(monotonicMilliseconds());
        }
      }
      return times;
    },
    "Session (one subscriber; a prompt of one turn)": async () => {
      opened ??= await openBenchSession({ ...options, baseUrl, maxTurns: 5 });
      const times = [];
      const unsubscribe = opened.session.subscribe((event) => {
        if (event.type === "assistant.message_delta") {
          times.push(monotonicMilliseconds());
        }
      });
      await opened.session.prompt(opened.settings, BENCH_PROMPT);
      unsubscribe();
      return times;
    },
  };
}

/**
 * Deltas/s through each layer of {@link makeLayers}, each reading the same instant stream of
 * `deltas` text deltas, in one process after a warm-up. Layers run in `rounds` rounds,
 * interleaved, so load changes hit every layer alike; CPU is the main thread's (schedstat).
 * @param {{dist: string, cwd: string, home: string, deltas: number, rounds?: number}} options
 */
async function relayLayers(options) {
  const model = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: options.deltas });
  const warmUp = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: 500 });
  try {
    for (const layer of Object.values(await makeLayers(options, warmUp.baseUrl))) {
      await layer();
    }
    const layers = await makeLayers(options, model.baseUrl);
    /** @type {Map<string, Array<{rate: number, cpu: number}>>} */
    const measured = new Map();
    for (let round = 0; round < (options.rounds ?? 1); round++) {
      for (const [name, layer] of Object.entries(layers)) {
        const before = mainThreadSchedule();
        const times = await layer();
        const after = mainThreadSchedule();
        const first = times[0] ?? Number.NaN;
        const last = times.at(-1) ?? Number.NaN;
        const runs = measured.get(name) ?? [];
        measured.set(name, runs);
        runs.push({
          rate: times.length > 1 ? ((times.length - 1) * 1000) / (last - first) : 0,
          cpu: ((after.onCpu - before.onCpu) * 1000) / Math.max(1, times.length),
        });
      }
    }
    return {
      rounds: options.rounds ?? 1,
      layers: [...measured].map(([layer, runs]) => ({
        layer,
        deltasPerSecond: median(runs.map((run) => run.rate)),
        cpuMicrosecondsPerDelta: median(runs.map((run) => run.cpu)),
      })),
    };
  } finally {
    await model.close();
    await warmUp.close();
  }
}

/**
 * Cost of one model request through each layer of {@link makeLayers}: `requests` requests in a
 * row per layer (a short answer of 8 deltas), after a warm-up; main-thread CPU and wall time per
 * request, median of `rounds` interleaved rounds.
 * @param {{dist: string, cwd: string, home: string, requests: number, rounds?: number}} options
 */
async function requestLayers(options) {
  const model = await startFakeModelElsewhere({ toolTurns: 0, answerDeltas: 8, keepBodies: 0 });
  try {
    const layers = await makeLayers(options, model.baseUrl);
    for (const layer of Object.values(layers)) {
      for (let request = 0; request < 5; request++) {
        await layer();
      }
    }
    /** @type {Map<string, Array<{cpu: number, wall: number}>>} */
    const measured = new Map();
    for (let round = 0; round < (options.rounds ?? 1); round++) {
      for (const [name, layer] of Object.entries(layers)) {
        const before = mainThreadSchedule();
        const start = monotonicMilliseconds();
        for (let request = 0; request < options.requests; request++) {
          await layer();
        }
        const wall = monotonicMilliseconds() - start;
        const after = mainThreadSchedule();
        const runs = measured.get(name) ?? [];
        measured.set(name, runs);
        runs.push({
          cpu: (after.onCpu - before.onCpu) / options.requests,
          wall: wall / options.requests,
        });
      }
    }
    return {
      rounds: options.rounds ?? 1,
      requests: options.requests,
      layers: [...measured].map(([layer, runs]) => ({
        layer,
        cpuMillisecondsPerRequest: median(runs.map((run) => run.cpu)),
        wallMillisecondsPerRequest: median(runs.map((run) => run.wall)),
      })),
    };
  } finally {
    await model.close();
  }
}

/** @param {number[]} values */
function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/**
 * RSS and heap (after a full GC) at each step of loading turnloop for `-p`, in order: Node alone,
 * the argument parser, the prompt command (session, loop, tools, event log), the OpenAI-compatible
 * provider package, and fetch (undici) after its first use.
 * @param {{dist: string}} options
 */
async function rssBreakdown(options) {
  const steps = [];
  const record = (step) => {
    collectGarbage();
    const usage = process.memoryUsage();
    steps.push({
      step,
      rssBytes: usage.rss,
      heapUsedBytes: usage.heapUsed,
      heapTotalBytes: usage.heapTotal,
      externalBytes: usage.external,
    });
  };
  record("node + this script");
  await importDist(options.dist, "cli/arguments.js");
  record("+ cli/arguments.js");
  await importDist(options.dist, "cli/prompt-command.js");
  record("+ cli/prompt-command.js (session, loop, tools, zod)");
  await import("@ai-sdk/openai-compatible");
  record("+ @ai-sdk/openai-compatible");
  await fetch("data:text/plain,x").then((response) => response.text());
  record("+ fetch used once (undici)");
  return { steps };
}

/**
 * Counts the ES modules loaded by importing `specifiers` (in order), with a resolve hook
 * (module-hook.mjs). CommonJS modules loaded through `require` are not seen by the hook.
 * @param {{specifiers: string[]}} options
 */
async function moduleCount(options) {
  const [{ register }, { bucketOf }] = await Promise.all([
    import("node:module"),
    import("./profile.mjs"),
  ]);
  const { port1, port2 } = new MessageChannel();
  const urls = new Set();
  port1.on("message", (url) => urls.add(url));
  register(new URL("./module-hook.mjs", import.meta.url), {
    data: { port: port2 },
    transferList: [port2],
  });
  const before = new Set(urls);
  for (const specifier of options.specifiers) {
    await import(specifier.startsWith("/") ? pathToFileURL(specifier).href : specifier);
  }
  await new Promise((resolveLater) => setTimeout(resolveLater, 100));
  port1.close();
  /** @type {Record<string, number>} */
  const perBucket = {};
  let total = 0;
  for (const url of urls) {
    if (before.has(url) || url.startsWith("node:")) {
      continue;
    }
    const bucket = bucketOf({ url, functionName: "" });
    const key = bucket.startsWith("turnloop dist/") ? "turnloop dist/" : bucket;
    perBucket[key] = (perBucket[key] ?? 0) + 1;
    total++;
  }
  return { total, perBucket };
}

/**
 * Writes a realistic `events.jsonl` of about `events` events with the log's own envelope and
 * serializer: user messages every 10 turns, assistant turns with 1–3 tool calls (view, grep, bash
 * with a permission request), usage, results of 0.3–3 KB, and a text answer ending each prompt.
 * @param {{dist: string, home: string, events: number}} options
 */
async function generateSession(options) {
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
  while (lines.length < options.events) {
    if (turn % 10 === 0) {
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
 * Resume: first the floor (read the file, split lines, `JSON.parse` each), then `Session.resume`
 * on the same (now cached) file, with the heap before and after.
 * @param {{dist: string, home: string, sessionId: string}} options
 */
async function resumeSession(options) {
  const [{ Session }, { eventsPath }] = await Promise.all([
    importDist(options.dist, "session/session.js"),
    importDist(options.dist, "session/paths.js"),
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
  const session = await Session.resume(options.home, options.sessionId);
  const resumeMilliseconds = monotonicMilliseconds() - start;
  collectGarbage();
  const memory = process.memoryUsage();
  await session.close();
  return {
    events: parsed,
    bytes: Buffer.byteLength(text),
    floorMilliseconds,
    resumeMilliseconds,
    heapRetainedBytes: memory.heapUsed - heapBefore,
    rssBytes: memory.rss,
    historyMessages: session.history.messages.length,
  };
}

/**
 * Memory over a long session: one prompt of `turns` model turns (`turns - 1` view calls and an
 * answer). Every `turns / samples` turns, after a full GC, records heap, RSS and the log's size;
 * also the per-turn overhead over the session (server-side gaps minus tool time).
 * @param {{dist: string, cwd: string, home: string, turns: number, samples: number}} options
 */
async function memory(options) {
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
    /** @type {Map<string, number>} */
    const toolStarts = new Map();
    const toolTimes = [];
    const sample = () => {
      collectGarbage();
      const usage = process.memoryUsage();
      points.push({
        turn: turns,
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        rss: usage.rss,
        external: usage.external + usage.arrayBuffers,
        logBytes: statSync(logPath).size,
      });
    };
    sample();
    session.subscribe((event) => {
      if (event.type === "assistant.turn_end") {
        turns++;
        if (turns % every === 0) {
          sample();
        }
      } else if (event.type === "tool.execution_start") {
        toolStarts.set(event.data.toolCallId, monotonicMilliseconds());
      } else if (event.type === "tool.execution_complete") {
        toolTimes.push(monotonicMilliseconds() - (toolStarts.get(event.data.toolCallId) ?? 0));
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

/**
 * Time and memory of importing one module (a package name or a path) into a fresh process.
 * @param {{specifier: string}} options
 */
async function importCost(options) {
  const specifier = options.specifier.startsWith("/")
    ? pathToFileURL(options.specifier).href
    : options.specifier;
  collectGarbage();
  const before = process.memoryUsage();
  const start = monotonicMilliseconds();
  await import(specifier);
  const milliseconds = monotonicMilliseconds() - start;
  collectGarbage();
  const after = process.memoryUsage();
  return {
    specifier: options.specifier,
    milliseconds,
    rssBeforeBytes: before.rss,
    rssAfterBytes: after.rss,
    heapAddedBytes: after.heapUsed - before.heapUsed,
  };
}

const BENCHMARKS = {
  "turn-overhead": turnOverhead,
  "turn-overhead-floor": turnOverheadFloor,
  relay,
  "relay-floor": relayFloor,
  "relay-layers": relayLayers,
  "request-layers": requestLayers,
  "rss-breakdown": rssBreakdown,
  "module-count": moduleCount,
  "generate-session": generateSession,
  resume: resumeSession,
  memory,
  import: importCost,
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}

/** @param {string[]} argv */
async function main(argv) {
  const [name, optionsText] = argv;
  const benchmark = BENCHMARKS[/** @type {keyof typeof BENCHMARKS} */ (name)];
  if (benchmark === undefined) {
    process.stderr.write(
      `usage: node --expose-gc bench/in-process.mjs <${Object.keys(BENCHMARKS).join("|")}> '<json>'\n`,
    );
    process.exit(64);
  }
  const options = JSON.parse(optionsText ?? "{}");
  if (typeof options.dist === "string") {
    options.dist = resolve(options.dist);
  }
  const result = await benchmark(options);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
