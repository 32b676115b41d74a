/**
 * The "Where the time and memory go" section of bench/RESULTS.md (report.mjs): the phases of the
 * one-prompt run, the per-turn gap, import costs, loaded files, RSS, relay and request layers,
 * memory over the long session, the first request's size, and CPU profiles.
 */

import { cell, formatBytes, formatDuration } from "./format.mjs";

/**
 * The diagnostics section: phases of the one-prompt run, import costs, RSS breakdown, relay
 * layers, CPU profiles.
 * @param {(...lines: string[]) => void} add
 * @param {import("./groups/common.mjs").Context} context
 */
export function addDiagnostics(add, context) {
  const { details } = context;
  if (details.onePrompt !== undefined) {
    add(
      "**One-prompt run, phase by phase** (medians over the runs of 1a; moments taken by the fake",
      "server and the benchmark process on one monotonic clock):",
      "",
      "| phase | median |",
      "|---|---|",
    );
    for (const [phase, milliseconds] of Object.entries(details.onePrompt.phases)) {
      add(`| ${phase} | ${formatDuration(milliseconds)} |`);
    }
    if (details.nodeFloor !== undefined) {
      add(
        `| (for scale: \`node -e 0\`, start to exit) | ${formatDuration(details.nodeFloor.wall)} |`,
      );
    }
    add("");
  }
  if (details.turnOverhead !== undefined) {
    add(
      "**Per-turn gap, span by span** (figure 3; response end and next request as seen by the fake",
      "server, the rest as seen by a session subscriber):",
      "",
      "| span | p50 | p90 |",
      "|---|---|---|",
    );
    const names = {
      gap: "response end read → next request written, in the client (whole gap)",
      tool: "view tool: tool.execution_running → tool.execution_complete",
      overhead: "gap − tool (the per-turn overhead)",
      responseEndToTurnEnd: "response end → assistant.turn_end emitted (stream end, parse, events)",
      turnEndToToolStart:
        "assistant.turn_end → tool.execution_start (as a subscriber receives them)",
      toolStartToRunning:
        "tool.execution_start → tool.execution_running (validation, permission gate, the log's checkpoint)",
      toolEndToNextRequest: "tool.execution_complete → next request written (build + send request)",
    };
    for (const [key, label] of Object.entries(names)) {
      add(
        `| ${label} | ${formatDuration(details.turnOverhead.spans[key])} | ${formatDuration(details.turnOverhead.p90Spans[key])} |`,
      );
    }
    add("");
  }
  if (details.imports !== undefined) {
    add(
      "**Import cost**, each module alone in a fresh process (`node --expose-gc bench/in-process.mjs",
      "import '{\"specifier\": …}'`; time of `await import()`, RSS added). The `dist/…` rows are the",
      "unbundled modules `tsc` writes, which the in-process benchmarks import; the `bin` loads the",
      "bundle (`dist/cli/chunks/`), so read them as the weight of each layer, not as start-up:",
      "",
      "| module | import time | RSS added |",
      "|---|---|---|",
    );
    for (const entry of details.imports) {
      add(
        `| \`${entry.specifier}\` | ${formatDuration(entry.milliseconds)} | ${formatBytes(entry.rssAddedBytes)} |`,
      );
    }
    add("");
  }
  if (details.loadedFiles !== undefined) {
    const describe = (loaded) =>
      loaded === undefined
        ? "not measured"
        : `${loaded.files} files: ${loaded.bundleFiles} of turnloop's bundle (holding ${loaded.sourceModules} source modules), ${Object.entries(
            loaded.perPackage,
          )
            .sort((a, b) => b[1] - a[1])
            .map(([where, number]) => `${where} ${number}`)
            .join(", ")}; and ${loaded.builtins} of Node's own`;
    add(
      "**Files loaded by a real run** (the `bin` under `node --import test/support/module-recorder.mjs`,",
      "which records every module as it loads; whole runs, up to exit; bench/groups/loaded-files.mjs):",
      `the one-prompt \`-p\` run: ${describe(details.loadedFiles.prompt)}; the ACP scenario: ${describe(details.loadedFiles.acp)}.`,
      "",
    );
  }
  if (details.rssBreakdown !== undefined) {
    add(
      "**RSS breakdown**, the unbundled layers of `-p` imported one after the other in one process (after a full GC;",
      '`node --expose-gc bench/in-process.mjs rss-breakdown \'{"dist":"dist"}\'`):',
      "",
      "| step | RSS | heap used | heap total |",
      "|---|---|---|---|",
    );
    for (const step of details.rssBreakdown) {
      add(
        `| ${step.step} | ${formatBytes(step.rssBytes)} | ${formatBytes(step.heapUsedBytes)} | ${formatBytes(step.heapTotalBytes)} |`,
      );
    }
    add("");
  }
  if (details.layers !== undefined) {
    add(
      "**Relay, layer by layer**: the same instant stream read through each layer in turn, one",
      `process, after a warm-up, median of ${details.layerRounds} interleaved round(s) (\`node --expose-gc bench/in-process.mjs relay-layers …\`;`,
      "CPU is the main thread's, from /proc schedstat):",
      "",
      "| layer | deltas/s | main-thread CPU µs per delta |",
      "|---|---|---|",
    );
    for (const layer of details.layers) {
      add(
        `| ${layer.layer} | ${Math.round(layer.deltasPerSecond).toLocaleString("en-US")} | ${layer.cpuMicrosecondsPerDelta.toFixed(1)} |`,
      );
    }
    add("");
  }
  if (details.requestLayers !== undefined) {
    add(
      `**One short model request, layer by layer** (8-delta answer; ${details.requestLayers.requests} requests in a row per layer, median of ${details.requestLayers.rounds} interleaved round(s), after a warm-up; \`node --expose-gc bench/in-process.mjs request-layers …\`):`,
      "",
      "| layer | main-thread CPU per request | wall per request |",
      "|---|---|---|",
    );
    for (const layer of details.requestLayers.layers) {
      add(
        `| ${layer.layer} | ${formatDuration(layer.cpuMillisecondsPerRequest)} | ${formatDuration(layer.wallMillisecondsPerRequest)} |`,
      );
    }
    add("");
  }
  if (details.memory !== undefined) {
    add(
      `**Memory over the long session** (figure 5b/5c; ${details.memory.points.at(-1).turn} turns in ${formatDuration(details.memory.wall)}, last request ${formatBytes(details.memory.lastRequestBytes)}; per-turn overhead p50 ${formatDuration(details.memory.overheadFirst)} over the first tenth of the turns, ${formatDuration(details.memory.overheadLast)} over the last):`,
      "",
      "| after turn | heap used | heap total | RSS | external + array buffers | events.jsonl |",
      "|---|---|---|---|---|---|",
    );
    for (const point of details.memory.points) {
      add(
        `| ${point.turn} | ${formatBytes(point.heapUsed)} | ${formatBytes(point.heapTotal)} | ${formatBytes(point.rss)} | ${formatBytes(point.external)} | ${formatBytes(point.logBytes)} |`,
      );
    }
    add("");
  }
  if (details.firstRequest !== undefined) {
    const request = details.firstRequest;
    add(
      `**First request, ${formatBytes(request.bytes)}**: system prompt ${formatBytes(request.systemBytes)}, tool definitions ${formatBytes(request.toolsBytes)} (${request.toolSizes.map((tool) => `${tool.name} ${tool.bytes} B`).join(", ")}), the rest (prompt, model, stream options, JSON framing) ${formatBytes(request.bytes - request.systemBytes - request.toolsBytes)}.`,
      "",
    );
  }
  const profiles = details.profiles ?? {};
  const profileNames = {
    onePrompt:
      "the one-prompt CLI run (`node --cpu-prof --cpu-prof-interval 200 dist/cli/main.js -p …`)",
    relay: "the relay, instant model (`node --cpu-prof … bench/in-process.mjs relay …`)",
    turns:
      "200 tool turns in one session (`node --cpu-prof … bench/in-process.mjs turn-overhead '{\"turns\":200,…}'`)",
    resume:
      "resume of the 100,000-event session (`node --cpu-prof … bench/in-process.mjs resume …`)",
  };
  for (const [key, label] of Object.entries(profileNames)) {
    const profile = profiles[key];
    if (profile === undefined) {
      continue;
    }
    add(
      `**CPU profile of ${label}**: ${formatDuration(profile.busyMilliseconds)} busy of ${formatDuration(profile.totalMilliseconds)} sampled (main thread). Self time by where the code lives:`,
      "",
      "| where | self time | share of busy |",
      "|---|---|---|",
    );
    for (const bucket of profile.buckets
      .filter((entry) => entry.bucket !== "(idle)")
      .slice(0, 10)) {
      add(
        `| ${cell(bucket.bucket)} | ${formatDuration(bucket.milliseconds)} | ${((100 * bucket.milliseconds) / profile.busyMilliseconds).toFixed(0)} % |`,
      );
    }
    if (profile.turnloopFunctions.length > 0) {
      add(
        "",
        `Busiest turnloop functions (self): ${profile.turnloopFunctions
          .slice(0, 5)
          .map((entry) => `\`${entry.name}\` ${formatDuration(entry.milliseconds)}`)
          .join(", ")}.`,
      );
    }
    add("");
  }
  if (Object.keys(profiles).length === 0) {
    add(
      context.mode === "quick"
        ? "(Diagnostics — import costs, layers, what-ifs — and CPU profiles are taken in full mode; `--quick --only diagnostics` runs all but the profiles.)"
        : "(No CPU profiles were taken.)",
      "",
    );
  }
}
