/**
 * Would 7d's sessions over several event loops meet it? The same sessions split over K
 * `--headless --stdio` server processes (each with sessions / K, on one home), against one
 * server of all of them, with 7d's fake model and client (bench/groups/sessions.mjs
 * `benchHeadless`, bench/sdk-server.mjs), for bench/notes/server42.md:
 *
 *   node bench/notes/server42-split.mjs --dist <build>/dist --sessions 1000 --servers 2
 *
 * Every server creates its sessions, then all send their prompts at once (a gate across the
 * servers: `measureSdkServer`'s `beforeSend`). Prints one JSON object: the load before and after,
 * the per-turn overhead p50/p99 over every session's turns (7d's: the gap between an answer's end
 * and the next request at the fake model, less the tool's run from its `tool.execution_start`),
 * inside the servers (answer parsed → next request sent, by the events' timestamps), the servers'
 * main threads' CPU over the send phase per model request (summed over the servers), each
 * server's own figures, and the log check of every session.
 */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeModelWorker } from "../fake-model.mjs";
import { MODES, scenarioEnvironment } from "../groups/common.mjs";
import { gapsInServer, turnOverheads } from "../groups/sessions.mjs";
import { checkSessionLogs, clientEventRecorder } from "../log-check.mjs";
import { BENCH_MODEL, BENCH_PROMPT, createScenarioRepository } from "../scenario.mjs";
import { measureSdkServer } from "../sdk-server.mjs";
import { percentile } from "../statistics.mjs";

function parseArguments(argv) {
  const value = (name) => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  return {
    dist: resolve(value("--dist") ?? "dist"),
    sessions: Number(value("--sessions") ?? MODES.full.headlessSessions),
    servers: Number(value("--servers") ?? 2),
  };
}

/** A gate that opens once `count` callers have reached it. */
function gateOf(count) {
  let reached = 0;
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  return async () => {
    reached += 1;
    if (reached === count) {
      open();
    }
    await opened;
  };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const temp = mkdtempSync(join(tmpdir(), "turnloop-split-"));
  const settings = MODES.full;
  const model = await startFakeModelWorker({
    toolTurns: settings.headlessToolTurns,
    firstTokenMilliseconds: settings.headlessFirstTokenMilliseconds,
    tokensPerSecond: settings.headlessTokensPerSecond,
  });
  try {
    const context = { temp, home: join(temp, "turnloop-home"), repo: join(temp, "repo") };
    createScenarioRepository(context.repo);
    mkdirSync(join(temp, "user-home"), { recursive: true });
    const transport = await import(pathToFileURL(join(options.dist, "sdk", "transport.js")).href);
    const scenario = scenarioEnvironment(context, model.baseUrl);
    const environment = transport.serverEnvironment?.(scenario) ?? scenario;
    const received = clientEventRecorder();
    const beforeSend = gateOf(options.servers);
    const loadBefore = loadavg()[0];
    const each = Math.round(options.sessions / options.servers);
    const results = await Promise.all(
      Array.from({ length: options.servers }, (_, server) =>
        measureSdkServer({
          cliPath: join(options.dist, "cli", "main.js"),
          cwd: context.repo,
          env: environment,
          model: BENCH_MODEL,
          prompt: `${BENCH_PROMPT} (server ${server + 1})`,
          sessions: each,
          timeoutMilliseconds: 600_000,
          onEvent: received.record,
          beforeSend,
        }),
      ),
    );
    const loadAfter = loadavg()[0];
    const missing = results.find((result) => !result.available);
    if (missing !== undefined) {
      throw new Error(`a server did not run: ${missing.reason}`);
    }
    const requests = await model.requests();
    // 7d's: each tool timed from its start (the SDK face sends no tool.execution_running).
    const overheads = results.flatMap((result) => turnOverheads(requests, result).overheads);
    const inServer = gapsInServer(received.bySession);
    const sessionIds = results.flatMap((result) => [...result.promptBySession.keys()]);
    const logs = checkSessionLogs(context.home, sessionIds, received.bySession, {
      shutdownExpected: results.every((result) => result.shutdown.exited),
    });
    const onCpu = results.reduce((sum, result) => sum + result.sendOnCpuMilliseconds, 0);
    const round = (value) => Math.round(value * 100) / 100;
    const figures = {
      dist: options.dist,
      sessions: sessionIds.length,
      servers: options.servers,
      load: `${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
      requests: requests.length,
      turns: overheads.length,
      p50: round(percentile(overheads, 0.5)),
      p99: round(percentile(overheads, 0.99)),
      inServer: { p50: percentile(inServer, 0.5), p99: percentile(inServer, 0.99) },
      cpuPerRequestMilliseconds: round(onCpu / requests.length),
      perServer: results.map((result) => ({
        allIdleMilliseconds: Math.round(result.allIdleMilliseconds),
        sendOnCpuMilliseconds: Math.round(result.sendOnCpuMilliseconds),
        peakRssMiB: Math.round(result.peakRssBytes / 1048576),
        shutdown: result.shutdown,
      })),
      logs: { sessions: logs.sessions, events: logs.events, problems: logs.problems.slice(0, 3) },
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    if (logs.problems.length > 0) {
      process.exitCode = 1;
    }
  } finally {
    await model.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

await main();
