#!/usr/bin/env node
/**
 * turnloop benchmarks (issue 6). Run after `npm run build`:
 *
 *   node bench/run.mjs            full mode (a few minutes on 2 cores)
 *   node bench/run.mjs --quick    fewer runs, under a minute, for use while developing
 *   node bench/run.mjs --only one-prompt,relay    some groups only
 *
 * Every benchmark talks to the fake model server of fake-model.mjs (OpenAI Chat Completions SSE
 * on 127.0.0.1, instant or at 50 tokens/s), in the issue's scenario: one prompt that takes two
 * model turns and one file read. Whole-process figures run the built CLI as a child process;
 * in-process figures run in-process.mjs in a fresh process each. Results, with the target, the
 * floor and the command of each figure, go to bench/RESULTS.md.
 */

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAverage, memoryMethod, runInProcess, runMeasured } from "./child.mjs";
import { measureAcp, measureSdkServer } from "./faces.mjs";
import { startFakeModelWorker } from "./fake-model.mjs";
import { mainThreadProfile, summarizeProfile } from "./profile.mjs";
import { writeReport } from "./report.mjs";
import { BENCH_MODEL, BENCH_PROMPT, createScenarioRepository } from "./scenario.mjs";
import { percentile, summarize } from "./statistics.mjs";

/** Runs and sizes per mode. */
const MODES = {
  quick: {
    onePromptRuns: 5,
    realisticRuns: 1,
    versionRuns: 10,
    turnOverheadRuns: 2,
    turns: 20,
    relayDeltas: 3_000,
    relayRuns: 1,
    latencyDeltas: 60,
    latencyRuns: 1,
    resumeEvents: 100_000,
    resumeRuns: 1,
    memoryTurns: 150,
    acpRuns: 3,
    headlessSessions: 100,
    headlessToolTurns: 2,
    importRuns: 1,
    layerDeltas: 3_000,
    layerRounds: 1,
    profiles: false,
  },
  full: {
    onePromptRuns: 15,
    realisticRuns: 3,
    versionRuns: 30,
    turnOverheadRuns: 5,
    turns: 20,
    relayDeltas: 20_000,
    relayRuns: 3,
    latencyDeltas: 200,
    latencyRuns: 2,
    resumeEvents: 100_000,
    resumeRuns: 5,
    memoryTurns: 1_000,
    acpRuns: 10,
    headlessSessions: 100,
    headlessToolTurns: 5,
    importRuns: 3,
    layerDeltas: 10_000,
    layerRounds: 3,
    profiles: true,
  },
};

/** Benchmark groups, in the order they run. */
const GROUPS = [
  "version",
  "one-prompt",
  "turn-overhead",
  "relay",
  "resume",
  "memory",
  "acp",
  "headless",
  "diagnostics",
];

/**
 * @typedef {object} Row One figure of RESULTS.md.
 * @property {string} id
 * @property {string} figure
 * @property {"ms" | "bytes" | "rate" | "bytes-per-turn"} unit
 * @property {number} [value] Median (or the percentile the figure names).
 * @property {{low: number, high: number, kind: string}} [spread]
 * @property {{text: string, met: (value: number, floor: number) => boolean}} [target]
 * @property {{value: number, label: string}} [floor]
 * @property {string} runs
 * @property {string} load 1-minute load average before → after the group.
 * @property {string} command
 * @property {string} [pending] Why the figure could not be measured.
 */

/**
 * @typedef {object} Context
 * @property {"quick" | "full"} mode
 * @property {typeof MODES.full} settings
 * @property {string} root The repository.
 * @property {string} dist
 * @property {string} cliPath
 * @property {string} temp Scratch folder, removed at the end.
 * @property {string} repo The scenario repository.
 * @property {string} home TURNLOOP_HOME for the runs.
 * @property {Row[]} rows
 * @property {Record<string, any>} details Measurements behind the notes.
 * @property {Array<{group: string, before: string, after: string}>} loads
 */

const here = dirname(fileURLToPath(import.meta.url));

/** @param {string[]} argv */
function parseArguments(argv) {
  const quick = argv.includes("--quick");
  const onlyIndex = argv.indexOf("--only");
  const only = onlyIndex === -1 ? GROUPS : (argv[onlyIndex + 1] ?? "").split(",");
  const unknown = only.filter((group) => !GROUPS.includes(group));
  if (
    unknown.length > 0 ||
    argv.some((arg) => arg.startsWith("--") && !["--quick", "--only"].includes(arg))
  ) {
    process.stderr.write(
      `usage: node bench/run.mjs [--quick] [--only ${GROUPS.join(",")}]\n` +
        (unknown.length > 0 ? `unknown group: ${unknown.join(", ")}\n` : ""),
    );
    process.exit(64);
  }
  return {
    mode: /** @type {"quick" | "full"} */ (quick ? "quick" : "full"),
    only,
    explicit: onlyIndex !== -1,
  };
}

/** @param {Context} context @param {string} baseUrl @returns {NodeJS.ProcessEnv} */
function scenarioEnvironment(context, baseUrl) {
  return {
    PATH: process.env.PATH,
    HOME: join(context.temp, "user-home"),
    TURNLOOP_HOME: context.home,
    TURNLOOP_MODEL: BENCH_MODEL,
    TURNLOOP_BASE_URL: baseUrl,
  };
}

/** The CLI command line as a person would type it, for the Commands section. */
function cliCommand(args, extraEnvironment = "") {
  return `cd "$REPO" && TURNLOOP_HOME="$TL_HOME" TURNLOOP_MODEL=${BENCH_MODEL} TURNLOOP_BASE_URL="$FAKE_MODEL"/v1 ${extraEnvironment}/usr/bin/time -v node dist/cli/main.js ${args}`;
}

/** @param {string} name @param {object} options */
function inProcessCommand(name, options) {
  return `node --expose-gc bench/in-process.mjs ${name} '${JSON.stringify(options)}'`;
}

/**
 * "main thread waited for a CPU 23 % of the time", from the schedules of in-process runs.
 * @param {Array<{schedule?: {wallMilliseconds: number, waitingMilliseconds: number}}>} results
 */
function waitShare(results) {
  const wall = results.reduce((sum, result) => sum + (result.schedule?.wallMilliseconds ?? 0), 0);
  const waiting = results.reduce(
    (sum, result) => sum + (result.schedule?.waitingMilliseconds ?? 0),
    0,
  );
  if (!(wall > 0) || !Number.isFinite(waiting)) {
    return "";
  }
  return `; main thread runnable but waiting for a CPU ${((100 * waiting) / wall).toFixed(0)} % of the time`;
}

/** @param {number[]} values @returns {{low: number, high: number, kind: string}} */
function minToMax(values) {
  const summary = summarize(values);
  return { low: summary.min, high: summary.max, kind: "min–max" };
}

/** @param {number[]} values @returns {{low: number, high: number, kind: string}} */
function p10ToP90(values) {
  const summary = summarize(values);
  return { low: summary.p10, high: summary.p90, kind: "p10–p90" };
}

/** @param {number} limit @returns {Row["target"]} */
function atMost(limit, text) {
  return { text, met: (value) => value <= limit };
}

/**
 * Checks that a CLI run did the scenario: exit 0, two requests (a view call, then the answer).
 * @param {import("./child.mjs").ChildResult} result
 * @param {import("./fake-model.mjs").RecordedRequest[]} requests
 */
function checkScenarioRun(result, requests) {
  const replies = requests.map((request) => request.reply).join(",");
  if (result.code !== 0 || replies !== "tool_call,text") {
    throw new Error(
      `the CLI did not run the scenario (exit ${result.code}, replies ${replies || "none"}): ${result.stderr.trim().slice(0, 400)}`,
    );
  }
}

// ------------------------------------------------------------------------------ one prompt

/** Figures 1 and 6: the one-prompt run as a child process, its floor, and the first request. */
async function benchOnePrompt(context) {
  const { settings } = context;
  const model = await startFakeModelWorker({});
  const floorScript = join(here, "floor-client.mjs");
  try {
    const env = scenarioEnvironment(context, model.baseUrl);
    const args = [context.cliPath, "-p", BENCH_PROMPT];
    // Warm-up (disk cache, first session folder); its requests are the bodies the floor replays.
    await model.reset();
    const warmUp = await runMeasured(process.execPath, args, { cwd: context.repo, env });
    const warmUpRequests = await model.requests();
    checkScenarioRun(warmUp, warmUpRequests);
    const bodiesPath = join(context.temp, "bodies.json");
    writeFileSync(bodiesPath, JSON.stringify(warmUpRequests.map((request) => request.body)));
    await runMeasured(process.execPath, [floorScript, model.baseUrl, bodiesPath]);

    const runs = [];
    const floors = [];
    for (let run = 0; run < settings.onePromptRuns; run++) {
      await model.reset();
      const result = await runMeasured(process.execPath, args, { cwd: context.repo, env });
      const requests = await model.requests();
      checkScenarioRun(result, requests);
      runs.push({ result, requests });
      floors.push(await runMeasured(process.execPath, [floorScript, model.baseUrl, bodiesPath]));
    }
    const walls = runs.map((run) => run.result.wallMilliseconds);
    const rss = runs.map((run) => run.result.peakRssBytes);
    const cpu = runs.map((run) => run.result.cpuMilliseconds);
    const floorWall = summarize(floors.map((floor) => floor.wallMilliseconds)).p50;
    const floorRss = summarize(floors.map((floor) => floor.peakRssBytes)).p50;
    const floorCpu = summarize(floors.map((floor) => floor.cpuMilliseconds)).p50;
    const phases = runs.map(({ result, requests }) => {
      const [first, second] = requests;
      return {
        "spawn → first request received (start-up)": first.receivedAt - result.spawnedAt,
        "model turn 1 (fake server: request → response end)": first.finishedAt - first.receivedAt,
        "response 1 end → request 2 received (loop + view tool)":
          second.receivedAt - first.finishedAt,
        "model turn 2 (fake server)": second.finishedAt - second.receivedAt,
        "response 2 end → process exit (shutdown)": result.exitedAt - second.finishedAt,
      };
    });
    const floorCommand = `node bench/floor-client.mjs "$FAKE_MODEL"/v1 "$BODIES"   # the 2 request bodies turnloop sent, via /usr/bin/time -v`;
    const runsText = `${settings.onePromptRuns} runs (+1 warm-up)`;
    const command = cliCommand(`-p "${BENCH_PROMPT}"`);
    context.rows.push(
      {
        id: "1a",
        figure: "one-prompt run: wall time (instant model)",
        unit: "ms",
        value: summarize(walls).p50,
        spread: minToMax(walls),
        target: atMost(250, "≤ 250 ms"),
        floor: { value: floorWall, label: "same 2 requests by a tiny fetch script" },
        runs: runsText,
        command: `${command}\n   floor: ${floorCommand}`,
      },
      {
        id: "1b",
        figure: "one-prompt run: peak RSS",
        unit: "bytes",
        value: summarize(rss).p50,
        spread: minToMax(rss),
        target: atMost(70 * 1024 * 1024, "≤ 70 MiB"),
        floor: { value: floorRss, label: "tiny fetch script" },
        runs: runsText,
        command: `${command}   # "Maximum resident set size"`,
      },
      {
        id: "1c",
        figure: "one-prompt run: CPU time, user + system (load-robust view of 1a)",
        unit: "ms",
        value: summarize(cpu).p50,
        spread: minToMax(cpu),
        floor: { value: floorCpu, label: "tiny fetch script" },
        runs: runsText,
        command: `${command}   # "User time" + "System time"`,
      },
    );

    // Figure 6: bytes of the first request, and what they are made of.
    const firstBody = JSON.parse(warmUpRequests[0]?.body ?? "{}");
    const minimal = JSON.stringify({
      model: "bench-model",
      messages: [{ role: "user", content: BENCH_PROMPT }],
      stream: true,
    });
    const toolSizes = (firstBody.tools ?? []).map((tool) => ({
      name: tool.function?.name,
      bytes: Buffer.byteLength(JSON.stringify(tool)),
    }));
    const systemMessage = (firstBody.messages ?? []).find((message) => message.role === "system");
    context.details.firstRequest = {
      bytes: warmUpRequests[0]?.bytes ?? Number.NaN,
      systemBytes: Buffer.byteLength(String(systemMessage?.content ?? "")),
      toolsBytes: Buffer.byteLength(JSON.stringify(firstBody.tools ?? [])),
      toolSizes,
      minimalBytes: Buffer.byteLength(minimal),
    };
    context.rows.push({
      id: "6",
      figure: "bytes sent to the model, first request (system prompt + tools + prompt)",
      unit: "bytes",
      value: context.details.firstRequest.bytes,
      target: atMost(6 * 1024, "≤ 6 KB (6,144 B)"),
      floor: {
        value: Buffer.byteLength(minimal),
        label: "the prompt alone, no system prompt or tools",
      },
      runs: "1 (deterministic)",
      command: `${command}   # body size recorded by bench/fake-model.mjs`,
    });
    context.details.onePrompt = {
      phases: medianOfEach(phases),
      walls,
      floorWall,
    };

    // Realistic token rate: the same run against a model that streams 50 tokens/s.
    const slow = await startFakeModelWorker({ tokensPerSecond: 50 });
    try {
      const slowEnv = scenarioEnvironment(context, slow.baseUrl);
      const slowRuns = [];
      for (let run = 0; run < settings.realisticRuns; run++) {
        await slow.reset();
        const result = await runMeasured(process.execPath, args, {
          cwd: context.repo,
          env: slowEnv,
        });
        const requests = await slow.requests();
        checkScenarioRun(result, requests);
        const modelTime = requests.reduce(
          (sum, request) => sum + (request.finishedAt - request.receivedAt),
          0,
        );
        slowRuns.push({ wall: result.wallMilliseconds, own: result.wallMilliseconds - modelTime });
      }
      const slowRunsText = `${settings.realisticRuns} run${settings.realisticRuns > 1 ? "s" : ""}`;
      context.rows.push(
        {
          id: "1d",
          figure: "one-prompt run: wall time, model at 50 tokens/s (24-token answer)",
          unit: "ms",
          value: summarize(slowRuns.map((run) => run.wall)).p50,
          spread: minToMax(slowRuns.map((run) => run.wall)),
          runs: slowRunsText,
          command: `${command}   # fake model at 50 tokens/s`,
        },
        {
          id: "1e",
          figure: "… of which turnloop's own time (wall − time the model spent streaming)",
          unit: "ms",
          value: summarize(slowRuns.map((run) => run.own)).p50,
          spread: minToMax(slowRuns.map((run) => run.own)),
          target: atMost(250, "≤ 250 ms (as 1a)"),
          floor: { value: floorWall, label: "tiny fetch script (instant model)" },
          runs: slowRunsText,
          command: `${command}   # fake model at 50 tokens/s`,
        },
      );
    } finally {
      await slow.close();
    }
  } finally {
    await model.close();
  }
}

/**
 * The median of each key over a list of records with the same keys.
 * @param {Array<Record<string, number>>} records
 * @returns {Record<string, number>}
 */
function medianOfEach(records) {
  const keys = Object.keys(records[0] ?? {});
  return Object.fromEntries(
    keys.map((key) => [
      key,
      percentile(
        records.map((record) => record[key] ?? Number.NaN),
        0.5,
      ),
    ]),
  );
}

// ------------------------------------------------------------------------------- version

/** Figure 2: `turnloop --version` against `node -e 0`, interleaved. */
async function benchVersion(context) {
  const runs = [];
  const floors = [];
  await runMeasured(process.execPath, [context.cliPath, "--version"]);
  await runMeasured(process.execPath, ["-e", "0"]);
  for (let run = 0; run < context.settings.versionRuns; run++) {
    const result = await runMeasured(process.execPath, [context.cliPath, "--version"]);
    if (result.code !== 0) {
      throw new Error(`turnloop --version failed: ${result.stderr}`);
    }
    runs.push(result);
    floors.push(await runMeasured(process.execPath, ["-e", "0"]));
  }
  const walls = runs.map((run) => run.wallMilliseconds);
  const floorWalls = floors.map((floor) => floor.wallMilliseconds);
  const runsText = `${context.settings.versionRuns} runs each, interleaved (+1 warm-up)`;
  context.details.nodeFloor = {
    wall: summarize(floorWalls).p50,
    rss: summarize(floors.map((floor) => floor.peakRssBytes)).p50,
  };
  context.rows.push(
    {
      id: "2a",
      figure: "`turnloop --version`: wall time",
      unit: "ms",
      value: summarize(walls).p50,
      spread: minToMax(walls),
      target: atMost(60, "≤ 60 ms"),
      floor: { value: summarize(floorWalls).p50, label: "`node -e 0`" },
      runs: runsText,
      command:
        "/usr/bin/time -v node dist/cli/main.js --version   # floor: /usr/bin/time -v node -e 0",
    },
    {
      id: "2b",
      figure: "`turnloop --version`: peak RSS",
      unit: "bytes",
      value: summarize(runs.map((run) => run.peakRssBytes)).p50,
      spread: minToMax(runs.map((run) => run.peakRssBytes)),
      floor: { value: context.details.nodeFloor.rss, label: "`node -e 0`" },
      runs: runsText,
      command: "/usr/bin/time -v node dist/cli/main.js --version",
    },
  );
}

// ------------------------------------------------------------------------- turn overhead

/** Figure 3: per-turn overhead over 20 tool turns in one session, and its floor. */
async function benchTurnOverhead(context) {
  const { settings } = context;
  const options = {
    dist: context.dist,
    cwd: context.repo,
    home: context.home,
    turns: settings.turns,
  };
  const samples = [];
  const floorSamples = [];
  const runP99 = [];
  const results = [];
  for (let run = 0; run < settings.turnOverheadRuns; run++) {
    const result = await runInProcess("turn-overhead", options);
    results.push(result);
    if (result.outcome?.stopReason !== "end_turn" || result.samples.length !== settings.turns) {
      throw new Error(
        `turn-overhead run ended ${JSON.stringify(result.outcome)} after ${result.requests} requests`,
      );
    }
    samples.push(...result.samples);
    runP99.push(
      percentile(
        result.samples.map((sample) => sample.overhead),
        0.99,
      ),
    );
    const floor = await runInProcess("turn-overhead-floor", { turns: settings.turns });
    floorSamples.push(...floor.samples);
  }
  const overheads = samples.map((sample) => sample.overhead);
  const floorOverheads = floorSamples.map((sample) => sample.overhead);
  const cpu = samples.map((sample) => sample.cpuPerTurnWithoutTool);
  const floorCpu = floorSamples.map((sample) => sample.cpuPerTurnWithoutTool);
  const runsText = `${settings.turnOverheadRuns} sessions × ${settings.turns} tool turns = ${overheads.length} turns${waitShare(results)}`;
  const command = `${inProcessCommand("turn-overhead", { ...options, dist: "dist", cwd: "$REPO", home: "$TL_HOME" })}\n   floor: ${inProcessCommand("turn-overhead-floor", { turns: settings.turns })}`;
  context.details.turnOverhead = {
    spans: medianOfEach(samples),
    p90Spans: Object.fromEntries(
      Object.keys(samples[0] ?? {}).map((key) => [
        key,
        percentile(
          samples.map((sample) => sample[key]),
          0.9,
        ),
      ]),
    ),
  };
  context.rows.push(
    {
      id: "3a",
      figure: "per-turn overhead p50 (response end → next request, minus the view tool's time)",
      unit: "ms",
      value: percentile(overheads, 0.5),
      spread: p10ToP90(overheads),
      target: atMost(1, "≤ 1 ms"),
      floor: { value: percentile(floorOverheads, 0.5), label: "tiny fetch loop, same requests" },
      runs: runsText,
      command,
    },
    {
      id: "3b",
      figure: "per-turn overhead p99",
      unit: "ms",
      value: percentile(overheads, 0.99),
      spread: minToMax(runP99),
      target: atMost(5, "≤ 5 ms"),
      floor: { value: percentile(floorOverheads, 0.99), label: "tiny fetch loop" },
      runs: `${runsText}; spread = p99 of each session`,
      command,
    },
    {
      id: "3c",
      figure:
        "per-turn main-thread CPU without the tool's, p50 (turn_start → next turn_start; load-robust view of 3a, includes parsing the response)",
      unit: "ms",
      value: percentile(cpu, 0.5),
      spread: p10ToP90(cpu),
      floor: { value: percentile(floorCpu, 0.5), label: "tiny fetch loop, CPU per request" },
      runs: `${runsText.split(";")[0]}; /proc/self/task/<pid>/schedstat at each event`,
      command,
    },
  );
}

// ---------------------------------------------------------------------------------- relay

/** Figure 4: streaming relay through the session's subscribers (and ACP once it exists). */
async function benchRelay(context) {
  const { settings } = context;
  const base = { dist: context.dist, cwd: context.repo, home: context.home };
  const shown = { dist: "dist", cwd: "$REPO", home: "$TL_HOME" };
  const throughput = { deltas: settings.relayDeltas, tokensPerSecond: 0 };
  const latency = { deltas: settings.latencyDeltas, tokensPerSecond: 50 };
  const rates = [];
  const floorRates = [];
  const rateResults = [];
  for (let run = 0; run < settings.relayRuns; run++) {
    const result = await runInProcess("relay", { ...base, ...throughput });
    rateResults.push(result);
    if (result.deltasReceived !== settings.relayDeltas) {
      throw new Error(`relay: ${result.deltasReceived} of ${settings.relayDeltas} deltas arrived`);
    }
    rates.push(result.deltasPerSecond);
    floorRates.push((await runInProcess("relay-floor", throughput)).deltasPerSecond);
  }
  const latencies = [];
  const floorLatencies = [];
  const latencyResults = [];
  for (let run = 0; run < settings.latencyRuns; run++) {
    const result = await runInProcess("relay", { ...base, ...latency });
    latencyResults.push(result);
    latencies.push(...result.latencies);
    floorLatencies.push(...(await runInProcess("relay-floor", latency)).latencies);
  }
  const floorP50 = percentile(floorLatencies, 0.5);
  const cpuRates = rateResults.map(
    (result) => (result.deltasReceived * 1000) / result.schedule.onCpuMilliseconds,
  );
  const floorP99 = percentile(floorLatencies, 0.99);
  const added = (text) => ({ text, met: (value, floor) => value - floor <= 2 });
  context.details.relay = {
    rate: summarize(rates).p50,
    floorRate: summarize(floorRates).p50,
    latency: summarize(latencies),
    floorLatency: summarize(floorLatencies),
  };
  context.rows.push(
    {
      id: "4a",
      figure: "streaming relay: deltas/s, model stream → session subscriber (instant model)",
      unit: "rate",
      value: summarize(rates).p50,
      spread: minToMax(rates),
      target: { text: "≥ 20,000 /s (to an ACP client)", met: (value) => value >= 20_000 },
      floor: { value: summarize(floorRates).p50, label: "fetch + minimal SSE parser" },
      runs: `${settings.relayRuns} run${settings.relayRuns > 1 ? "s" : ""} × ${settings.relayDeltas.toLocaleString("en-US")} deltas, fresh process each (JIT cold)${waitShare(rateResults)}`,
      command: `${inProcessCommand("relay", { ...shown, ...throughput })}\n   floor: ${inProcessCommand("relay-floor", throughput)}`,
    },
    {
      id: "4a′",
      figure:
        "streaming relay: deltas per second of main-thread CPU (load-robust view of 4a; the whole prompt, set-up included)",
      unit: "rate",
      value: summarize(cpuRates).p50,
      spread: minToMax(cpuRates),
      runs: `${settings.relayRuns} run${settings.relayRuns > 1 ? "s" : ""} × ${settings.relayDeltas.toLocaleString("en-US")} deltas`,
      command: inProcessCommand("relay", { ...shown, ...throughput }),
    },
    {
      id: "4b",
      figure: "streaming relay: latency per delta p50, server write → subscriber (50 tokens/s)",
      unit: "ms",
      value: percentile(latencies, 0.5),
      spread: p10ToP90(latencies),
      floor: { value: floorP50, label: "fetch + minimal SSE parser" },
      runs: `${settings.latencyRuns} × ${settings.latencyDeltas} deltas${waitShare(latencyResults)}`,
      command: `${inProcessCommand("relay", { ...shown, ...latency })}\n   floor: ${inProcessCommand("relay-floor", latency)}`,
    },
    {
      id: "4c",
      figure: "streaming relay: latency per delta p99 (target: p99 − floor p99 ≤ 2 ms)",
      unit: "ms",
      value: percentile(latencies, 0.99),
      spread: minToMax(latencies),
      target: added("added ≤ 2 ms"),
      floor: { value: floorP99, label: "fetch + minimal SSE parser" },
      runs: `${settings.latencyRuns} × ${settings.latencyDeltas} deltas`,
      command: `${inProcessCommand("relay", { ...shown, ...latency })}`,
    },
  );

  // Through ACP, once `turnloop acp` works.
  const acpRows = await relayThroughAcp(context, throughput, latency);
  context.rows.push(...acpRows);
}

/**
 * Relay through `turnloop acp`: deltas/s and added latency at an ACP client. Pending rows when the
 * ACP face does not answer.
 * @param {Context} context
 * @param {{deltas: number}} throughput
 * @param {{deltas: number, tokensPerSecond: number}} latency
 * @returns {Promise<Row[]>}
 */
async function relayThroughAcp(context, throughput, latency) {
  const measure = async (deltas, tokensPerSecond) => {
    const model = await startFakeModelWorker({
      toolTurns: 0,
      answerDeltas: deltas,
      tokensPerSecond,
      numberedDeltas: true,
      recordDeltaTimes: true,
    });
    try {
      const result = await measureAcp({
        cliPath: context.cliPath,
        cwd: context.repo,
        env: scenarioEnvironment(context, model.baseUrl),
        prompt: BENCH_PROMPT,
        timeoutMilliseconds: 120_000,
      });
      if (!result.available) {
        return result;
      }
      const written = (await model.requests())[0]?.deltaWrittenAt ?? [];
      const chunks = result.chunks;
      const first = chunks[0]?.at ?? Number.NaN;
      const last = chunks.at(-1)?.at ?? Number.NaN;
      return {
        available: true,
        count: chunks.length,
        rate: chunks.length > 1 ? ((chunks.length - 1) * 1000) / (last - first) : 0,
        latencies: chunks.map((chunk) => chunk.at - (written[chunk.number] ?? Number.NaN)),
      };
    } finally {
      await model.close();
    }
  };
  const fast = await measure(throughput.deltas, 0);
  const command = `${cliCommand("acp")}   # an ACP client on stdio: initialize, session/new, session/prompt`;
  if (!fast.available) {
    const pending = `not measurable yet: ACP server not built (\`turnloop acp\`: ${fast.reason})`;
    return [
      {
        id: "4d",
        figure: "streaming relay through ACP: deltas/s at the ACP client",
        unit: "rate",
        target: { text: "≥ 20,000 /s", met: () => false },
        runs: "—",
        command,
        pending,
      },
      {
        id: "4e",
        figure: "streaming relay through ACP: added latency per delta p99",
        unit: "ms",
        target: { text: "≤ 2 ms", met: () => false },
        runs: "—",
        command,
        pending,
      },
    ];
  }
  const slow = await measure(latency.deltas, latency.tokensPerSecond);
  const floorP99 = context.details.relay?.floorLatency?.p99 ?? Number.NaN;
  return [
    {
      id: "4d",
      figure: "streaming relay through ACP: deltas/s at the ACP client (instant model)",
      unit: "rate",
      value: fast.rate,
      target: { text: "≥ 20,000 /s", met: (value) => value >= 20_000 },
      floor: {
        value: context.details.relay?.floorRate ?? Number.NaN,
        label: "fetch + minimal SSE parser",
      },
      runs: `1 × ${throughput.deltas.toLocaleString("en-US")} deltas (${fast.count} seen)`,
      command,
    },
    {
      id: "4e",
      figure: "streaming relay through ACP: latency per delta p99 (50 tokens/s)",
      unit: "ms",
      value: slow.available ? percentile(slow.latencies, 0.99) : Number.NaN,
      spread: slow.available ? p10ToP90(slow.latencies) : undefined,
      target: { text: "added ≤ 2 ms", met: (value, floor) => value - floor <= 2 },
      floor: { value: floorP99, label: "fetch + minimal SSE parser" },
      runs: `1 × ${latency.deltas} deltas`,
      command,
    },
  ];
}

// --------------------------------------------------------------------------------- resume

/** Figure 5a: `Session.resume` of a 100,000-event session, against reading + parsing the file. */
async function benchResume(context) {
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

// --------------------------------------------------------------------------------- memory

/**
 * The least-squares slope of `value` over the points' `turn`.
 * @param {Array<{turn: number}>} points
 * @param {(point: any) => number} value
 */
function slope(points, value) {
  const count = points.length;
  if (count < 2) {
    return Number.NaN;
  }
  const meanTurn = points.reduce((sum, point) => sum + point.turn, 0) / count;
  const meanValue = points.reduce((sum, point) => sum + value(point), 0) / count;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.turn - meanTurn) * (value(point) - meanValue);
    variance += (point.turn - meanTurn) ** 2;
  }
  return covariance / variance;
}

/** Figure 5b: heap and RSS over a long session (one prompt of many tool turns). */
async function benchMemory(context) {
  const turns = context.settings.memoryTurns;
  const options = { dist: context.dist, cwd: context.repo, home: context.home, turns, samples: 10 };
  const result = await runInProcess("memory", options);
  if (result.turns !== turns) {
    throw new Error(
      `memory run stopped after ${result.turns} of ${turns} turns: ${JSON.stringify(result.outcome)}`,
    );
  }
  const points = result.points;
  // Growth per turn: the least-squares slope over the second half of the session, after the
  // start-up and warm-up growth of the first turns.
  const secondHalf = points.filter((point) => point.turn >= turns / 2);
  const from = secondHalf[0] ?? points[0];
  const to = points.at(-1);
  const heapPerTurn = slope(secondHalf, (point) => point.heapUsed);
  const rssPerTurn = slope(secondHalf, (point) => point.rss);
  const logPerTurn = slope(secondHalf, (point) => point.logBytes);
  const tenth = Math.max(1, Math.floor(result.overheads.length / 10));
  context.details.memory = {
    points,
    wall: result.wallMilliseconds,
    lastRequestBytes: result.lastRequestBytes,
    heapPerTurn,
    rssPerTurn,
    logPerTurn,
    overheadFirst: percentile(result.overheads.slice(0, tenth), 0.5),
    overheadLast: percentile(result.overheads.slice(-tenth), 0.5),
  };
  const command = inProcessCommand("memory", {
    ...options,
    dist: "dist",
    cwd: "$REPO",
    home: "$TL_HOME",
  });
  const runs = `1 session of ${turns.toLocaleString("en-US")} model turns; sampled after a full GC every ${turns / 10} turns; slope over turns ${from.turn}–${to.turn}${waitShare([result])}`;
  context.rows.push(
    {
      id: "5b",
      figure: `memory over a ${turns.toLocaleString("en-US")}-turn session: heap growth per turn (log grows ${(logPerTurn / 1024).toFixed(1)} KiB/turn)`,
      unit: "bytes-per-turn",
      value: heapPerTurn,
      target: {
        text: "flat: ≤ 2 × the log's growth (the history itself)",
        met: (value) => value <= 2 * logPerTurn,
      },
      floor: { value: logPerTurn, label: "events.jsonl growth per turn" },
      runs,
      command,
    },
    {
      id: "5c",
      figure: `memory over a ${turns.toLocaleString("en-US")}-turn session: RSS growth per turn (RSS ${(from.rss / 1048576).toFixed(0)} → ${(to.rss / 1048576).toFixed(0)} MiB over turns ${from.turn}–${to.turn}; ${(points[0].rss / 1048576).toFixed(0)} MiB before the first turn)`,
      unit: "bytes-per-turn",
      value: rssPerTurn,
      target: {
        text: "flat: ≤ 2 × the log's growth",
        met: (value) => value <= 2 * logPerTurn,
      },
      floor: { value: logPerTurn, label: "events.jsonl growth per turn" },
      runs,
      command,
    },
  );
}

// ------------------------------------------------------------------------------------ ACP

/** Figure 7a–c: `turnloop acp` spawn → initialize, spawn → prompt answered, peak RSS. */
async function benchAcp(context) {
  const model = await startFakeModelWorker({});
  const command = `${cliCommand("acp")}   # ACP client on stdio (bench/faces.mjs): initialize, session/new, session/prompt "${BENCH_PROMPT}"`;
  try {
    const env = scenarioEnvironment(context, model.baseUrl);
    const first = await measureAcp({
      cliPath: context.cliPath,
      cwd: context.repo,
      env,
      prompt: BENCH_PROMPT,
    });
    if (!first.available) {
      const pending = `not measurable yet: ACP server not built (\`turnloop acp\`: ${first.reason})`;
      context.rows.push(
        {
          id: "7a",
          figure: "ACP: spawn → `initialize` answered",
          unit: "ms",
          target: atMost(150, "≤ 0.15 s"),
          runs: "—",
          command,
          pending,
        },
        {
          id: "7b",
          figure: "ACP: spawn → `session/prompt` answered (the scenario)",
          unit: "ms",
          target: atMost(300, "≤ 0.3 s"),
          runs: "—",
          command,
          pending,
        },
        {
          id: "7c",
          figure: "ACP: peak RSS of the agent",
          unit: "bytes",
          runs: "—",
          command,
          pending,
        },
      );
      return;
    }
    const runs = [];
    for (let run = 0; run < context.settings.acpRuns; run++) {
      await model.reset();
      const result = await measureAcp({
        cliPath: context.cliPath,
        cwd: context.repo,
        env,
        prompt: BENCH_PROMPT,
      });
      if (!result.available || result.stopReason !== "end_turn") {
        throw new Error(`ACP run failed: ${result.available ? result.stopReason : result.reason}`);
      }
      runs.push(result);
    }
    const runsText = `${context.settings.acpRuns} runs (+1 warm-up)`;
    const init = runs.map((run) => run.initializeMilliseconds);
    const prompt = runs.map((run) => run.promptMilliseconds);
    const rss = runs.map((run) => run.peakRssBytes);
    context.rows.push(
      {
        id: "7a",
        figure: "ACP: spawn → `initialize` answered",
        unit: "ms",
        value: summarize(init).p50,
        spread: minToMax(init),
        target: atMost(150, "≤ 0.15 s"),
        floor: context.details.nodeFloor
          ? { value: context.details.nodeFloor.wall, label: "`node -e 0`" }
          : undefined,
        runs: runsText,
        command,
      },
      {
        id: "7b",
        figure: "ACP: spawn → `session/prompt` answered (the scenario)",
        unit: "ms",
        value: summarize(prompt).p50,
        spread: minToMax(prompt),
        target: atMost(300, "≤ 0.3 s"),
        floor: context.details.onePrompt
          ? { value: context.details.onePrompt.floorWall, label: "tiny fetch script" }
          : undefined,
        runs: runsText,
        command,
      },
      {
        id: "7c",
        figure: "ACP: peak RSS of the agent (VmHWM before it is stopped)",
        unit: "bytes",
        value: summarize(rss).p50,
        spread: minToMax(rss),
        runs: runsText,
        command,
      },
    );
  } finally {
    await model.close();
  }
}

// ------------------------------------------------------------------------------- headless

/** Figure 7d: 100 concurrent sessions in one `--headless --stdio` server, per-turn overhead p99. */
async function benchHeadless(context) {
  const { settings } = context;
  const model = await startFakeModelWorker({
    toolTurns: settings.headlessToolTurns,
    keepBodies: 0,
  });
  const command = `${cliCommand("--headless --stdio")}   # SDK JSON-RPC client (bench/faces.mjs): connect, ${settings.headlessSessions} × session.create, ${settings.headlessSessions} × session.send at once`;
  try {
    const result = await measureSdkServer({
      cliPath: context.cliPath,
      cwd: context.repo,
      env: scenarioEnvironment(context, model.baseUrl),
      model: BENCH_MODEL,
      prompt: BENCH_PROMPT,
      sessions: settings.headlessSessions,
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
      turns: requests.length,
      allIdleMilliseconds: result.allIdleMilliseconds,
    };
    const overheads = [];
    for (const [sessionId, prompt] of result.promptBySession) {
      const ofSession = requests.filter((request) => request.key === prompt);
      const tools = result.toolsBySession.get(sessionId) ?? [];
      for (let turn = 0; turn + 1 < ofSession.length; turn++) {
        const tool = tools[turn];
        const toolTime = tool === undefined ? 0 : tool.complete - tool.start;
        overheads.push(ofSession[turn + 1].receivedAt - ofSession[turn].finishedAt - toolTime);
      }
    }
    context.rows.push({
      id: "7d",
      figure: `SDK server: ${settings.headlessSessions} concurrent sessions in one \`--headless\` server, per-turn overhead p99`,
      unit: "ms",
      value: percentile(overheads, 0.99),
      spread: p10ToP90(overheads),
      target: atMost(20, "≤ 20 ms"),
      runs: `1 run, ${overheads.length} turns; all idle after ${Math.round(result.allIdleMilliseconds)} ms; peak RSS ${(result.peakRssBytes / 1048576).toFixed(0)} MiB`,
      command,
    });
  } finally {
    await model.close();
  }
}

// ---------------------------------------------------------------------------- diagnostics

/** Modules whose import cost is measured, each in a fresh process. */
function importSpecifiers(context) {
  return [
    join(context.dist, "cli/arguments.js"),
    join(context.dist, "cli/prompt-command.js"),
    join(context.dist, "session/session.js"),
    join(context.dist, "tools/index.js"),
    join(context.dist, "llm/models.js"),
    join(context.dist, "acp/main.js"),
    join(context.dist, "server/main.js"),
    "zod",
    "@ai-sdk/openai-compatible",
    "@ai-sdk/openai",
    "@ai-sdk/anthropic",
    "ai",
    "@agentclientprotocol/sdk",
    "vscode-jsonrpc/node.js",
  ];
}

/**
 * Where the time and memory go: import costs, an RSS breakdown, the relay through each layer, and
 * CPU profiles of the one-prompt run, the relay, the per-turn loop and resume.
 */
async function benchDiagnostics(context) {
  const { settings } = context;
  const imports = [];
  for (const specifier of importSpecifiers(context)) {
    const runs = [];
    for (let run = 0; run < settings.importRuns; run++) {
      runs.push(await runInProcess("import", { specifier }));
    }
    imports.push({
      specifier: specifier.startsWith(context.dist)
        ? `dist/${specifier.slice(context.dist.length + 1)}`
        : specifier,
      milliseconds: summarize(runs.map((run) => run.milliseconds)).p50,
      rssAddedBytes: summarize(runs.map((run) => run.rssAfterBytes - run.rssBeforeBytes)).p50,
    });
  }
  context.details.imports = imports;
  context.details.rssBreakdown = (
    await runInProcess("rss-breakdown", { dist: context.dist })
  ).steps;
  const layers = await runInProcess("relay-layers", {
    dist: context.dist,
    cwd: context.repo,
    home: context.home,
    deltas: settings.layerDeltas,
    rounds: settings.layerRounds,
  });
  context.details.layers = layers.layers;
  context.details.layerRounds = layers.rounds;
  context.details.requestLayers = await runInProcess("request-layers", {
    dist: context.dist,
    cwd: context.repo,
    home: context.home,
    requests: 20,
    rounds: settings.layerRounds,
  });
  context.details.modules = {
    prompt: await runInProcess("module-count", {
      specifiers: [join(context.dist, "cli/prompt-command.js"), "@ai-sdk/openai-compatible"],
    }),
    acp: await runInProcess("module-count", { specifiers: [join(context.dist, "acp/main.js")] }),
  };
  context.details.whatIf = await whatIfV8Flags(context);
  if (!settings.profiles) {
    return;
  }
  const profiles = {};
  const profileDirectory = (name) => {
    const directory = join(context.temp, "profiles", name);
    mkdirSync(directory, { recursive: true });
    return directory;
  };
  const flags = (directory) => [
    "--cpu-prof",
    "--cpu-prof-interval",
    "200",
    "--cpu-prof-dir",
    directory,
  ];

  // The one-prompt CLI run.
  const model = await startFakeModelWorker({});
  try {
    const directory = profileDirectory("one-prompt");
    const result = await runMeasured(
      process.execPath,
      [...flags(directory), context.cliPath, "-p", BENCH_PROMPT],
      { cwd: context.repo, env: scenarioEnvironment(context, model.baseUrl) },
    );
    if (result.code === 0) {
      profiles.onePrompt = summarizeProfile(mainThreadProfile(directory) ?? "");
    }
  } finally {
    await model.close();
  }
  const inProcessProfile = async (name, benchmark, options) => {
    const directory = profileDirectory(name);
    await runInProcess(benchmark, options, flags(directory));
    const path = mainThreadProfile(directory);
    return path === undefined ? undefined : summarizeProfile(path);
  };
  const base = { dist: context.dist, cwd: context.repo, home: context.home };
  profiles.relay = await inProcessProfile("relay", "relay", {
    ...base,
    deltas: settings.relayDeltas,
    tokensPerSecond: 0,
  });
  profiles.turns = await inProcessProfile("turns", "turn-overhead", { ...base, turns: 200 });
  const acpModel = await startFakeModelWorker({});
  try {
    const directory = profileDirectory("acp");
    const result = await measureAcp({
      cliPath: context.cliPath,
      cwd: context.repo,
      env: scenarioEnvironment(context, acpModel.baseUrl),
      prompt: BENCH_PROMPT,
      nodeArguments: flags(directory),
    });
    const path = result.available ? mainThreadProfile(directory) : undefined;
    if (path !== undefined) {
      profiles.acp = summarizeProfile(path);
    }
  } finally {
    await acpModel.close();
  }
  const resume = context.details.resume;
  if (resume !== undefined) {
    copyFileSync(resume.pristine, resume.path);
    profiles.resume = await inProcessProfile("resume", "resume", {
      dist: context.dist,
      home: resume.home,
      sessionId: resume.sessionId,
    });
  }
  context.details.profiles = profiles;
}

/**
 * What if V8 compiled WebAssembly with Liftoff only? undici (Node's fetch) parses HTTP with a
 * WebAssembly build of llhttp; V8 also compiles it with TurboFan on a background thread, which
 * costs memory, and the process waits for that job before it can exit. The one-prompt run with a
 * few V8 flags, variants alternating so that they share the same load.
 * @param {Context} context
 */
async function whatIfV8Flags(context) {
  const model = await startFakeModelWorker({});
  const runs = context.mode === "full" ? 5 : 2;
  const variants = [
    { name: "node dist/cli/main.js -p …", flags: [], results: [] },
    { name: "node --liftoff-only dist/cli/main.js -p …", flags: ["--liftoff-only"], results: [] },
    {
      name: "node --liftoff-only --max-semi-space-size=1 dist/cli/main.js -p …",
      flags: ["--liftoff-only", "--max-semi-space-size=1"],
      results: [],
    },
  ];
  try {
    const env = scenarioEnvironment(context, model.baseUrl);
    for (let run = 0; run < runs; run++) {
      for (const variant of variants) {
        await model.reset();
        const result = await runMeasured(
          process.execPath,
          [...variant.flags, context.cliPath, "-p", BENCH_PROMPT],
          { cwd: context.repo, env },
        );
        const requests = await model.requests();
        checkScenarioRun(result, requests);
        variant.results.push({
          wall: result.wallMilliseconds,
          cpu: result.cpuMilliseconds,
          rss: result.peakRssBytes,
          shutdown: result.exitedAt - (requests.at(-1)?.finishedAt ?? Number.NaN),
        });
      }
    }
    const median = (values) => percentile(values, 0.5);
    return {
      runs,
      variants: variants.map(({ name, results }) => ({
        name,
        wall: median(results.map((result) => result.wall)),
        cpu: median(results.map((result) => result.cpu)),
        rss: median(results.map((result) => result.rss)),
        shutdown: median(results.map((result) => result.shutdown)),
      })),
    };
  } finally {
    await model.close();
  }
}

// ----------------------------------------------------------------------------------- main

const BENCHMARKS = {
  "one-prompt": benchOnePrompt,
  version: benchVersion,
  "turn-overhead": benchTurnOverhead,
  relay: benchRelay,
  resume: benchResume,
  memory: benchMemory,
  acp: benchAcp,
  headless: benchHeadless,
  diagnostics: benchDiagnostics,
};

async function main() {
  const { mode, only, explicit } = parseArguments(process.argv.slice(2));
  const root = dirname(here);
  const dist = join(root, "dist");
  const cliPath = join(dist, "cli", "main.js");
  if (!existsSync(cliPath)) {
    process.stderr.write(`bench: ${cliPath} is missing; run npm run build first\n`);
    process.exit(1);
  }
  const temp = mkdtempSync(join(tmpdir(), "turnloop-bench-"));
  /** @type {Context} */
  const context = {
    mode,
    settings: MODES[mode],
    root,
    dist,
    cliPath,
    temp,
    repo: join(temp, "repo"),
    home: join(temp, "turnloop-home"),
    rows: [],
    details: {},
    loads: [],
  };
  createScenarioRepository(context.repo);
  mkdirSync(join(temp, "user-home"), { recursive: true });
  const started = performance.now();
  const startedAt = new Date();
  process.stderr.write(`bench: ${mode} mode, peak RSS via ${memoryMethod()}, scratch in ${temp}\n`);
  try {
    for (const group of GROUPS) {
      if (!only.includes(group)) {
        continue;
      }
      if (group === "diagnostics" && mode === "quick" && !explicit) {
        // Diagnostics take about a minute by themselves; quick mode skips them unless asked.
        continue;
      }
      const before = loadAverage();
      const rowsBefore = context.rows.length;
      const groupStarted = performance.now();
      process.stderr.write(`bench: ${group} … (load ${before})\n`);
      try {
        await BENCHMARKS[group](context);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        process.stderr.write(`bench: ${group} failed: ${message}\n`);
        context.rows.push({
          id: group,
          figure: `${group}: the benchmark failed`,
          unit: "ms",
          runs: "—",
          command: "",
          pending: `error: ${message.replace(/\s+/g, " ").slice(0, 300)}`,
        });
      }
      const after = loadAverage();
      context.loads.push({ group, before, after });
      for (const row of context.rows.slice(rowsBefore)) {
        row.load = `${before.split(" ")[0]} → ${after.split(" ")[0]}`;
      }
      process.stderr.write(
        `bench: ${group} done in ${((performance.now() - groupStarted) / 1000).toFixed(1)} s\n`,
      );
    }
  } finally {
    const output = join(here, "RESULTS.md");
    try {
      writeReport(output, context, {
        startedAt,
        seconds: (performance.now() - started) / 1000,
        memoryMethod: memoryMethod(),
        cpuModel: cpus()[0]?.model ?? "unknown CPU",
        cpuCount: cpus().length,
        invocation: `node bench/run.mjs${process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(" ")}` : ""}`,
      });
      process.stderr.write(
        `bench: wrote ${output} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }
}

await main();
