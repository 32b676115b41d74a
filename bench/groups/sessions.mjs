/** Session figures: resuming a long log, memory over a long session, many sessions in one server. */

import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInProcess } from "../child.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { measureHeadlessFloor } from "../headless-floor.mjs";
import { checkSessionLogs, clientEventRecorder } from "../log-check.mjs";
import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";
import { measureSdkServer } from "../sdk-server.mjs";
import { percentile, summarize } from "../statistics.mjs";
import {
  atMost,
  cliCommand,
  inProcessCommand,
  minToMax,
  p10ToP90,
  scenarioEnvironment,
  startEnvironment,
} from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context @typedef {import("./common.mjs").Row} Row */

// Figures 5b/5c live in memory.mjs; kept importable from here (bench/run.mjs, bench/notes/*.mjs).
export { benchMemory, medianSlope, slope } from "./memory.mjs";

// --------------------------------------------------------------------------------- resume

/** Figure 5a: `Session.resume` of a 100,000-event session, against reading + parsing the file. */
export async function benchResume(context) {
  const { settings } = context;
  const home = join(context.temp, "resume-home");
  const generated = await runInProcess("generate-session", {
    dist: context.dist,
    home,
    events: settings.resumeEvents,
  });
  const pristine = join(context.temp, "resume-pristine.jsonl");
  copyFileSync(generated.path, pristine);
  const runs = [];
  for (let run = 0; run < settings.resumeRuns; run++) {
    copyFileSync(pristine, generated.path);
    runs.push(
      await runInProcess("resume", { dist: context.dist, home, sessionId: generated.sessionId }),
    );
  }
  const times = runs.map((run) => run.resumeMilliseconds);
  context.details.resume = {
    events: generated.events,
    bytes: generated.bytes,
    heapRetained: summarize(runs.map((run) => run.heapRetainedBytes)).p50,
    rss: summarize(runs.map((run) => run.rssBytes)).p50,
    sessionId: generated.sessionId,
    home,
    pristine,
    path: generated.path,
  };
  context.rows.push({
    id: "5a",
    figure: `resume a ${generated.events.toLocaleString("en-US")}-event session (${(generated.bytes / 1024 / 1024).toFixed(0)} MiB events.jsonl): \`Session.resume\``,
    unit: "ms",
    value: summarize(times).p50,
    spread: minToMax(times),
    target: atMost(1000, "≤ 1 s"),
    floor: {
      value: summarize(runs.map((run) => run.floorMilliseconds)).p50,
      label: "readFileSync + split + JSON.parse per line",
    },
    runs: `${settings.resumeRuns} run${settings.resumeRuns > 1 ? "s" : ""}, fresh process each`,
    command: `${inProcessCommand("generate-session", { dist: "dist", home: "$RESUME_HOME", events: settings.resumeEvents })}\n   then: ${inProcessCommand("resume", { dist: "dist", home: "$RESUME_HOME", sessionId: "$SESSION_ID" })}`,
  });
}

// ------------------------------------------------------------------------------- headless

/**
 * Each tool turn's gap inside the server, by the events' own timestamps (ms): from the turn's
 * `assistant.message` (the model's answer read and parsed) to the next `assistant.turn_start`
 * (the next request sent), without its tools' runs (`tool.execution_start`, or the
 * `permission.completed` after it, → `_complete`: the SDK face does not send turnloop's
 * `tool.execution_running`, src/server/wire-events.ts `onCopilotWire`).
 * Unlike 7d's gap, it holds neither the HTTP transit nor the fake model's own queue.
 * @param {Map<string, Array<{type: string, at: number}>>} bySession What each client received.
 * @returns {number[]}
 */
export function gapsInServer(bySession) {
  const gaps = [];
  for (const events of bySession.values()) {
    let answeredAt = Number.NaN;
    let runningAt = Number.NaN;
    let tools = 0;
    for (const event of events) {
      if (event.type === "assistant.message") {
        answeredAt = event.at;
        tools = 0;
      } else if (event.type === "tool.execution_start" || event.type === "permission.completed") {
        runningAt = event.at;
      } else if (event.type === "tool.execution_complete") {
        tools += event.at - runningAt;
      } else if (event.type === "assistant.turn_start" && Number.isFinite(answeredAt)) {
        gaps.push(event.at - answeredAt - tools);
        answeredAt = Number.NaN;
      }
    }
  }
  return gaps.filter(Number.isFinite);
}

/**
 * 7d's per-turn overheads: for each session of `result` (bench/sdk-server.mjs), the gap between
 * an answer's end and the next request at the fake model (`requests`, matched by the prompt),
 * less the tool's run from its `tool.execution_running` when sent (`overheads`) or from its
 * `tool.execution_start` (`overheadsFromStart`).
 * @param {Array<{key: string, receivedAt: number, finishedAt: number}>} requests
 * @param {{promptBySession: Map<string, string>, toolsBySession: Map<string, Array<{start: number, running: number, complete: number}>>}} result
 * @returns {{overheads: number[], overheadsFromStart: number[]}}
 */
export function turnOverheads(requests, result) {
  const overheads = [];
  const overheadsFromStart = [];
  for (const [sessionId, prompt] of result.promptBySession) {
    const ofSession = requests.filter((request) => request.key === prompt);
    const tools = result.toolsBySession.get(sessionId) ?? [];
    for (let turn = 0; turn + 1 < ofSession.length; turn++) {
      const tool = tools[turn];
      const gap = ofSession[turn + 1].receivedAt - ofSession[turn].finishedAt;
      const running = Number.isFinite(tool?.running) ? tool.running : tool?.start;
      overheads.push(gap - (tool === undefined ? 0 : tool.complete - running));
      overheadsFromStart.push(gap - (tool === undefined ? 0 : tool.complete - tool.start));
    }
  }
  return { overheads, overheadsFromStart };
}

/** Figure 7d: concurrent sessions (1,000 in full mode) in one `--headless --stdio` server, per-turn overhead p99. */
export async function benchHeadless(context) {
  const { settings } = context;
  const { headlessTokensPerSecond: tokensPerSecond, headlessFirstTokenMilliseconds: firstToken } =
    settings;
  const model = await startFakeModelWorker({
    toolTurns: settings.headlessToolTurns,
    // As a real model: answers spread out rather than all at once from one thread.
    firstTokenMilliseconds: firstToken,
    tokensPerSecond,
    // The first request's body, which the floor's loops send (bench/headless-floor.mjs).
    keepBodies: 1,
  });
  const pace = `first token after ${firstToken[0]}–${firstToken[1]} ms, then ${tokensPerSecond > 0 ? `${tokensPerSecond} tokens/s` : "at once"}`;
  // Started as an SDK app starts it (src/sdk/transport.ts `spawnServer`): `node
  // dist/cli/main.js`, not through the bin's first line, whose Node flags
  // (`--max-semi-space-size=2`) no SDK app gets, in the environment the build's SDK gives the
  // server (its thread pool; the scenario's as is for a build whose SDK adds nothing).
  const transport = await import(pathToFileURL(join(context.dist, "sdk", "transport.js")).href);
  const scenario = scenarioEnvironment(context, model.baseUrl);
  const environment = transport.serverEnvironment?.(scenario) ?? scenario;
  const threadPool =
    environment.UV_THREADPOOL_SIZE === undefined
      ? ""
      : `UV_THREADPOOL_SIZE=${environment.UV_THREADPOOL_SIZE} `;
  const command = `${cliCommand("--headless --stdio", threadPool).replace('"$TURNLOOP"/dist/cli/main.js', 'node "$TURNLOOP"/dist/cli/main.js')}   # SDK JSON-RPC client (bench/sdk-server.mjs): connect, ${settings.headlessSessions} × session.create, ${settings.headlessSessions} × session.send at once, then its input ended; the fake model's answers: ${pace}`;
  const received = clientEventRecorder();
  try {
    const result = await measureSdkServer({
      cliPath: context.cliPath,
      ...(context.serverNodeArguments === undefined
        ? {}
        : { nodeArguments: context.serverNodeArguments }),
      cwd: context.repo,
      env: environment,
      model: BENCH_MODEL,
      prompt: BENCH_PROMPT,
      sessions: settings.headlessSessions,
      // 1,000 sessions on a loaded 2-core machine take minutes, not the default 2.
      timeoutMilliseconds: 600_000,
      onEvent: received.record,
    });
    if (!result.available) {
      context.rows.push({
        id: "7d",
        figure: `SDK server: ${settings.headlessSessions} concurrent sessions in one \`--headless\` server, per-turn overhead p99`,
        unit: "ms",
        target: atMost(20, "≤ 20 ms"),
        runs: "—",
        command,
        pending: `not measurable yet: SDK server not built (\`turnloop --headless --stdio\`: ${result.reason})`,
      });
      return;
    }
    const requests = await model.requests();
    context.details.headless = {
      sessions: result.promptBySession.size,
      turns: requests.length,
      allIdleMilliseconds: result.allIdleMilliseconds,
      sendOnCpuMilliseconds: result.sendOnCpuMilliseconds,
    };
    // Each turn's overhead is wall time, so it holds the waiting behind the other sessions' work
    // on the server's one main thread (and for a CPU when the machine is loaded); the main
    // thread's time on a CPU per model request is the work itself, as a mean.
    const onCpuPerRequest = result.sendOnCpuMilliseconds / requests.length;
    // The tool's time is its run alone: from `tool.execution_running` (sent once the call was
    // allowed, its hooks ran and the log was made durable) to `tool.execution_complete`. From
    // `tool.execution_start` it would hold that permission check, hooks and fdatasync too,
    // which are turnloop's per-turn overhead, not the tool's; until round 3 session 8 the tool
    // was timed from its start, which left them out of the figure (bench/notes/targets.md,
    // "Server lane … session 8"). Since round 3 session 16 the SDK face no longer sends
    // `tool.execution_running` (not on Copilot's wire; it is ephemeral, so no log holds it
    // either): the tool is timed from its start again, and `toolsTimedFromRunning` says so.
    const { overheads, overheadsFromStart } = turnOverheads(requests, result);
    context.details.headless.toolsTimedFromRunning = [...result.toolsBySession.values()]
      .flat()
      .filter((tool) => Number.isFinite(tool.running)).length;
    context.details.headless.p99FromToolStart = percentile(overheadsFromStart, 0.99);
    const inServer = gapsInServer(received.bySession);
    context.details.headless.inServer = {
      p50: percentile(inServer, 0.5),
      p99: percentile(inServer, 0.99),
      turns: inServer.length,
    };
    // A server that exited by itself closed every session first: each log ends with its
    // `session.shutdown`, so the count of events is exact (3 prompts' worth + 1 per session).
    const logs = checkSessionLogs(context.home, result.promptBySession.keys(), received.bySession, {
      shutdownExpected: result.shutdown.exited,
    });
    if (!result.shutdown.exited) {
      logs.problems.push(
        "the server did not exit by itself after its input ended: logs not checked for session.shutdown",
      );
    }
    context.details.headless.logs = logs;
    context.details.headless.shutdown = result.shutdown;
    // The same sessions' requests from as many tiny loops in one process, after turnloop's run,
    // against the same fake model: the queueing any one-threaded client of them has.
    const floor = await measureHeadlessFloor({
      model,
      sessions: settings.headlessSessions,
      prompt: BENCH_PROMPT,
      firstBody: requests[0]?.body,
      temp: context.temp,
      env: startEnvironment(context),
    });
    context.details.headless.floor = {
      p99: percentile(floor.gaps, 0.99),
      p50: percentile(floor.gaps, 0.5),
      turns: floor.gaps.length,
      cpuPerRequest: floor.cpuMilliseconds / floor.requests,
      inClient: {
        p50: percentile(floor.gapsInClient, 0.5),
        p99: percentile(floor.gapsInClient, 0.99),
      },
    };
    const { inServer: own, floor: floorFigures } = context.details.headless;
    context.rows.push({
      id: "7d",
      figure: `SDK server: ${settings.headlessSessions} concurrent sessions in one \`--headless\` server, per-turn overhead p99`,
      unit: "ms",
      value: percentile(overheads, 0.99),
      ...(logs.problems.length === 0
        ? {}
        : { failed: `${logs.problems.length} log problem(s); first: ${logs.problems[0]}` }),
      spread: p10ToP90(overheads),
      target: atMost(20, "≤ 20 ms"),
      floor: {
        value: context.details.headless.floor.p99,
        label: `${settings.headlessSessions} tiny node:http loops in one process, same requests, per-turn gap p99 (p50 ${floorFigures.p50.toFixed(1)} ms; ${floorFigures.cpuPerRequest.toFixed(2)} ms CPU per request; inside the loops, answer parsed → next request sent: p50 ${floorFigures.inClient.p50.toFixed(2)} ms, p99 ${floorFigures.inClient.p99.toFixed(2)} ms)`,
      },
      runs: `1 run, ${overheads.length} turns (${context.details.headless.toolsTimedFromRunning === 0 ? "each tool timed from its start: the SDK face sends no tool.execution_running" : `with the tool timed from its start, as before: p99 ${Math.round(context.details.headless.p99FromToolStart)} ms`}; inside the server, answer parsed → next request sent by the events' timestamps: p50 ${Math.round(own.p50)} ms, p99 ${Math.round(own.p99)} ms); fake model's answers: ${pace}; logs checked: ${logs.sessions} sessions, ${logs.events} events, ${logs.problems.length} problems; all idle after ${Math.round(result.allIdleMilliseconds)} ms, the server's main thread on a CPU ${onCpuPerRequest.toFixed(1)} ms per model request meanwhile; peak RSS ${(result.peakRssBytes / 1048576).toFixed(0)} MiB${result.shutdown.exited ? `; every session closed and the server exited ${Math.round(result.shutdown.milliseconds)} ms after its input ended` : ""}`,
      command,
    });
  } finally {
    await model.close();
  }
}
