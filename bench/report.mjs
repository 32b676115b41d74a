/**
 * Writes bench/RESULTS.md from the rows and details gathered by run.mjs: the figures table (median,
 * spread, target, floor, ratio, load), the commands, where the time and memory go, notes on every
 * target not met, and what cannot be measured yet.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { formatBytes, formatDuration, formatRatio, formatValue } from "./format.mjs";
import { addNotes, statusOf } from "./report-notes.mjs";

/**
 * How many times its floor's cost a figure is: value / floor, or floor / value for rates (a rate
 * three times lower than the floor's is "×3").
 * @param {import("./groups/common.mjs").Row} row
 */
function ratioToFloor(row) {
  if (row.value === undefined || row.floor === undefined) {
    return Number.NaN;
  }
  return row.unit === "rate" ? row.floor.value / row.value : row.value / row.floor.value;
}

/** @param {string} text */
function cell(text) {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The commit and whether src/ has uncommitted changes. */
function revision(root) {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
    }).trim();
    const changed = execFileSync("git", ["status", "--porcelain", "--", "src"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\n")
      .filter((line) => line.trim() !== "").length;
    return changed === 0
      ? commit
      : `${commit} + ${changed} uncommitted file(s) in src/ (work in progress by others)`;
  } catch {
    return "unknown";
  }
}

/**
 * What this run's load was, from the 1-minute load averages taken before and after each group,
 * and the `node -e 0` wall time measured in it (row 2a's floor), so that a reader can compare
 * runs made on a quiet and on a busy machine.
 * @param {import("./groups/common.mjs").Context} context
 * @returns {string[]}
 */
function noiseParagraph(context) {
  const oneMinute = context.loads
    .flatMap((load) => [load.before, load.after])
    .map((text) => Number.parseFloat(String(text).split(" ")[0] ?? ""))
    .filter((value) => Number.isFinite(value));
  const range =
    oneMinute.length === 0
      ? "not recorded"
      : `${Math.min(...oneMinute).toFixed(2)}–${Math.max(...oneMinute).toFixed(2)}`;
  /** @type {number | undefined} */
  const nodeFloor = context.details.nodeFloor?.wall;
  return [
    `**Noise.** This 2-core machine is shared. The 1-minute load average (1.0 = one core busy) was ${range}`,
    "over this run; each group's before → after is in the table. Wall times also follow the machine's",
    `own speed, which varies from day to day${nodeFloor === undefined ? "" : ` (\`node -e 0\` took ${nodeFloor.toFixed(1)} ms in this run)`}: compare`,
    "runs by the `× floor` ratios, whose floors are measured in the same run, and by CPU time (1c, 3c),",
    "which is less sensitive to load than wall time.",
  ];
}

/**
 * @param {string} path
 * @param {import("./groups/common.mjs").Context} context
 * @param {{startedAt: Date, seconds: number, memoryMethod: string, cpuModel: string,
 *   cpuCount: number, invocation: string}} meta
 */
export function writeReport(path, context, meta) {
  const lines = [];
  const add = (...more) => lines.push(...more);
  const { rows } = context;

  add(
    "# turnloop benchmarks",
    "",
    "This whole file is written by one command, `npm run build && node bench/run.mjs` (full mode:",
    "every group, including the scripts `bench/acp-memory.mjs`, `listing.mjs`, `interactive.mjs`,",
    "`compaction.mjs`, `viewer.mjs`, `sandbox.mjs` and the PostgreSQL chaos trial, about 20 minutes",
    "on 2 cores; `--quick` for fewer runs; `--help` for the rest). Do not edit it by hand: the",
    "hand-written notes on targets not met live in `bench/notes/not-met.md`, included below.",
    "",
    `Written by \`${meta.invocation}\` (${context.mode} mode) on ${meta.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC in ${meta.seconds.toFixed(0)} s.`,
    `Machine: ${meta.cpuCount} × ${meta.cpuModel}, Node ${process.version}, ${process.platform}. turnloop ${revision(context.root)}.`,
    `Peak RSS and CPU time of child processes: ${meta.memoryMethod === "gnu-time" ? "GNU `/usr/bin/time -v`" : "polling /proc/<pid>/status (VmHWM)"}; wall times: monotonic clock from spawn to exit, in the benchmark process.`,
    "",
    ...noiseParagraph(context),
    "",
    "Scenario (issue 6): one prompt, `What does notes.md say?`, that takes two model turns and one",
    "`view` of a small file, against the fake model of `bench/fake-model.mjs` (OpenAI Chat Completions",
    "SSE on 127.0.0.1; instant unless a row says 50 tokens/s). Values are medians unless the figure",
    "names a percentile. `× floor` is how many times its floor's cost a figure is (for rates: floor",
    "rate / our rate).",
    "",
    "## Figures",
    "",
    "| # | figure | command | result | spread | target | status | floor | × floor | runs | load 1 min |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const row of rows) {
    const status = statusOf(row);
    const value =
      row.pending !== undefined
        ? "—"
        : row.value === undefined
          ? "—"
          : formatValue(row.value, row.unit);
    const spread =
      row.spread === undefined
        ? "—"
        : `${formatValue(row.spread.low, row.unit)} – ${formatValue(row.spread.high, row.unit)} (${row.spread.kind})`;
    const floor =
      row.floor === undefined
        ? "—"
        : `${formatValue(row.floor.value, row.unit)} (${row.floor.label})`;
    const shownStatus =
      status === "FAILED"
        ? `**FAILED**: ${row.failed}`
        : status === "NOT MET"
          ? "**not met**"
          : status === "pending"
            ? row.pending?.startsWith("not run") === true
              ? row.pending
              : `pending: ${row.pending}`
            : status;
    add(
      `| ${row.id} | ${cell(row.figure)} | ${commandCell(row.command)} | ${value} | ${cell(spread)} | ${cell(row.target?.text ?? "— (information)")} | ${cell(shownStatus)} | ${cell(floor)} | ${formatRatio(ratioToFloor(row))} | ${cell(row.runs)} | ${row.load ?? "—"} |`,
    );
  }

  const pending = rows.filter(
    (row) => row.pending !== undefined && !row.pending.startsWith("not run"),
  );
  if (pending.length > 0) {
    add("", "## Not measurable yet", "");
    for (const row of pending) {
      add(`- **${row.id}** ${row.figure}: ${row.pending}`);
    }
    if (pending.some((row) => row.pending?.startsWith("not measurable yet") === true)) {
      add(
        "",
        "The measuring code for the faces is in place (`bench/faces.mjs`: an ACP client over stdio;",
        "`bench/sdk-server.mjs`: a Copilot-SDK-style JSON-RPC client over `--headless --stdio`); those rows fill in by",
        "themselves once `turnloop acp` and `turnloop --headless` answer.",
      );
    }
  }

  addNotes(add, context);
  add("", "## Where the time and memory go", "");
  addDiagnostics(add, context);
  for (const section of context.sections ?? []) {
    add(
      `## ${section.title}`,
      "",
      `\`${section.command}\`${section.seconds === undefined ? "" : ` (${section.seconds} s)`}, as this run printed it:`,
      "",
      section.text
        .replace(/^<!--.*-->\n?/gm, "")
        .replace(/^#+ .*\n+/, "")
        .trim(),
      "",
    );
  }

  add(
    "## Commands",
    "",
    "Each figure's command. `run.mjs` starts the fake model server (`bench/fake-model.mjs`, in a",
    "worker thread) at `$FAKE_MODEL` (http://127.0.0.1:<random port>), creates the scenario",
    "repository `$REPO` (`notes.md`, `src/index.js`; see `bench/scenario.mjs`) and an empty",
    "`$TL_HOME`, all in a temporary folder removed at the end; `$TURNLOOP` is this checkout (the",
    "folder of `dist/`), where the other commands run; in their JSON options, put the paths in",
    "place of `$REPO` and `$TL_HOME` (single quotes keep the shell from expanding them).",
    "Child-process figures run under",
    "`/usr/bin/time -v -o <file>`; the environment is only `PATH`, `HOME`, and the `TURNLOOP_*`",
    "variables shown.",
    "",
  );
  for (const row of rows) {
    if (row.command !== "") {
      add(`- **${row.id}**: \`${row.command.replaceAll("\n   ", "`\n  `")}\``);
    }
  }
  add(
    "",
    "## Load average per group",
    "",
    "| group | before (1, 5, 15 min) | after | wall |",
    "|---|---|---|---|",
  );
  for (const load of context.loads) {
    add(`| ${load.group} | ${load.before} | ${load.after} | ${load.seconds ?? "—"} s |`);
  }
  add("");
  writeFileSync(path, lines.join("\n"));
}

/** A command for the figures table: the first line, in code, or "—". */
function commandCell(command) {
  if (command === undefined || command === "") {
    return "—";
  }
  return `\`${cell(command.split("\n")[0] ?? "").replaceAll("`", "'")}\``;
}

/**
 * The diagnostics section: phases of the one-prompt run, import costs, RSS breakdown, relay
 * layers, CPU profiles.
 * @param {(...lines: string[]) => void} add
 * @param {import("./groups/common.mjs").Context} context
 */
function addDiagnostics(add, context) {
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
      gap: "response end → next request received (whole gap)",
      tool: "view tool: tool.execution_start → tool.execution_complete",
      overhead: "gap − tool (the per-turn overhead)",
      responseEndToTurnEnd: "response end → assistant.turn_end emitted (stream end, parse, events)",
      turnEndToToolStart: "assistant.turn_end → tool.execution_start (validation, permission gate)",
      toolEndToNextRequest:
        "tool.execution_complete → next request received (build + send request)",
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
