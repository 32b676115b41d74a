/** Start-up figures: the one-prompt run as a child process (its floor, its phases) and `--version`. */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { binCommand, packageBin } from "../bin.mjs";
import { runMeasured } from "../child.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { BENCH_PROMPT } from "../scenario.mjs";
import { summarize } from "../statistics.mjs";
import {
  atMost,
  atMostTimesFloor,
  benchDirectory,
  checkScenarioRun,
  cliCommand,
  medianOfEach,
  minToMax,
  scenarioEnvironment,
  startEnvironment,
} from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context @typedef {import("./common.mjs").Row} Row */

// ------------------------------------------------------------------------------ one prompt

/** Figures 1 and 6: the one-prompt run as a child process, its floor, and the first request. */
export async function benchOnePrompt(context) {
  const { settings } = context;
  const model = await startFakeModelWorker({});
  const floorScript = join(benchDirectory, "floor-client.mjs");
  try {
    const env = scenarioEnvironment(context, model.baseUrl);
    // The package's `bin`, what `turnloop -p` runs once installed or linked, started as a user's
    // shell starts it (bench/bin.mjs); README's examples' `node dist/cli/main.js -p`, which goes
    // through Node's ES module loader first, is row 1g, run interleaved with it.
    const { command: cli, args } = binCommand(packageBin(context.root), ["-p", BENCH_PROMPT]);
    const moduleEntry = binCommand(context.cliPath, ["-p", BENCH_PROMPT]);
    // Warm-up (disk cache, first session folder); its requests are the bodies the floor replays.
    await model.reset();
    const warmUp = await runMeasured(cli, args, { cwd: context.repo, env });
    const warmUpRequests = await model.requests();
    checkScenarioRun(warmUp, warmUpRequests);
    const bodiesPath = join(context.temp, "bodies.json");
    writeFileSync(bodiesPath, JSON.stringify(warmUpRequests.map((request) => request.body)));
    const floorArgs = [floorScript, model.baseUrl, bodiesPath];
    const fetchFloorArgs = [...floorArgs, "--fetch"];
    await runMeasured(process.execPath, floorArgs, { env });
    await runMeasured(process.execPath, fetchFloorArgs, { env });

    const runs = [];
    const floors = [];
    const fetchFloors = [];
    const moduleEntryRuns = [];
    for (let run = 0; run < settings.onePromptRuns; run++) {
      await model.reset();
      const result = await runMeasured(cli, args, { cwd: context.repo, env });
      const requests = await model.requests();
      checkScenarioRun(result, requests);
      runs.push({ result, requests });
      floors.push(await runMeasured(process.execPath, floorArgs, { env }));
      fetchFloors.push(await runMeasured(process.execPath, fetchFloorArgs, { env }));
      await model.reset();
      const viaModule = await runMeasured(moduleEntry.command, moduleEntry.args, {
        cwd: context.repo,
        env,
      });
      checkScenarioRun(viaModule, await model.requests());
      moduleEntryRuns.push(viaModule);
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
    const fetchWalls = fetchFloors.map((floor) => floor.wallMilliseconds);
    const floorCommand = `node bench/floor-client.mjs "$FAKE_MODEL"/v1 "$BODIES"   # the 2 request bodies turnloop sent, over node:http, via /usr/bin/time -v`;
    const floorLabel = "same 2 requests by a tiny node:http script";
    const runsText = `${settings.onePromptRuns} runs (+1 warm-up, which writes turnloop's code cache)`;
    const command = cliCommand(`-p "${BENCH_PROMPT}"`).replace(
      "dist/cli/main.js",
      "dist/cli/turnloop.cjs",
    );
    const moduleEntryWalls = moduleEntryRuns.map((result) => result.wallMilliseconds);
    context.rows.push(
      {
        id: "1a",
        figure: "one-prompt run: wall time (instant model)",
        unit: "ms",
        value: summarize(walls).p50,
        spread: minToMax(walls),
        target: {
          text: "≤ ×3 `node -e 0` (issue 26)",
          met: (value) => value <= 3 * (context.details.nodeFloor?.wall ?? Number.NaN),
        },
        floor: { value: floorWall, label: floorLabel },
        runs: runsText,
        command: `${command}\n   floor: ${floorCommand}`,
      },
      {
        id: "1b",
        figure: "one-prompt run: peak RSS",
        unit: "bytes",
        value: summarize(rss).p50,
        spread: minToMax(rss),
        target: atMost(63 * 1024 * 1024, "≤ 63 MiB"),
        floor: { value: floorRss, label: "tiny node:http script" },
        runs: runsText,
        command: `${command}   # "Maximum resident set size"`,
      },
      {
        id: "1c",
        figure: "one-prompt run: CPU time, user + system (load-robust view of 1a)",
        unit: "ms",
        value: summarize(cpu).p50,
        spread: minToMax(cpu),
        floor: { value: floorCpu, label: "tiny node:http script" },
        runs: runsText,
        command: `${command}   # "User time" + "System time"`,
      },
      {
        id: "1f",
        figure:
          "… the same 2 requests through Node's global `fetch` (undici), which turnloop does not use",
        unit: "ms",
        value: summarize(fetchWalls).p50,
        spread: minToMax(fetchWalls),
        floor: { value: floorWall, label: floorLabel },
        runs: runsText,
        command: `node bench/floor-client.mjs "$FAKE_MODEL"/v1 "$BODIES" --fetch   # via /usr/bin/time -v`,
      },
      {
        id: "1g",
        figure:
          "… the same run started as README's examples start it, `node dist/cli/main.js -p` (an ES module: Node's ES module loader loads first)",
        unit: "ms",
        value: summarize(moduleEntryWalls).p50,
        spread: minToMax(moduleEntryWalls),
        floor: { value: floorWall, label: floorLabel },
        runs: `${runsText}, interleaved with 1a's`,
        command: cliCommand(`-p "${BENCH_PROMPT}"`),
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
        const result = await runMeasured(cli, args, { cwd: context.repo, env: slowEnv });
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
          floor: { value: floorWall, label: "tiny node:http script (instant model)" },
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

// ------------------------------------------------------------------------------- version

/** Figure 2: `turnloop --version` against `node -e 0`, interleaved. */
export async function benchVersion(context) {
  const runs = [];
  const floors = [];
  // The package's bin, as `turnloop --version` runs once installed (not main.js: bench/bin.mjs).
  const { command: cli, args } = binCommand(packageBin(context.root), ["--version"]);
  const env = startEnvironment(context);
  await runMeasured(cli, args, { env });
  await runMeasured(process.execPath, ["-e", "0"], { env });
  for (let run = 0; run < context.settings.versionRuns; run++) {
    const result = await runMeasured(cli, args, { env });
    if (result.code !== 0) {
      throw new Error(`turnloop --version failed: ${result.stderr}`);
    }
    runs.push(result);
    floors.push(await runMeasured(process.execPath, ["-e", "0"], { env }));
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
      target: atMostTimesFloor(1.2, "≤ ×1.2 `node -e 0`"),
      floor: { value: summarize(floorWalls).p50, label: "`node -e 0`" },
      runs: runsText,
      command:
        "/usr/bin/time -v dist/cli/turnloop.cjs --version   # floor: /usr/bin/time -v node -e 0",
    },
    {
      id: "2b",
      figure: "`turnloop --version`: peak RSS",
      unit: "bytes",
      value: summarize(runs.map((run) => run.peakRssBytes)).p50,
      spread: minToMax(runs.map((run) => run.peakRssBytes)),
      floor: { value: context.details.nodeFloor.rss, label: "`node -e 0`" },
      runs: runsText,
      command: "/usr/bin/time -v dist/cli/turnloop.cjs --version",
    },
  );
}
