/**
 * Writes bench/RESULTS.md from the rows and details gathered by run.mjs: the figures table (median,
 * spread, target, floor, ratio, load), the commands, where the time and memory go, notes on every
 * target not met, and what cannot be measured yet.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { formatBytes, formatDuration, formatRatio, formatValue } from "./format.mjs";
import { percentile } from "./statistics.mjs";
import { viewerSection } from "./viewer-section.mjs";

/**
 * @param {import("./groups/common.mjs").Row} row
 * @returns {"FAILED" | "met" | "NOT MET" | "pending" | "info"}
 */
export function statusOf(row) {
  if (row.failed !== undefined) {
    return "FAILED";
  }
  if (row.pending !== undefined) {
    return "pending";
  }
  if (row.target === undefined || row.value === undefined) {
    return "info";
  }
  return row.target.met(row.value, row.floor?.value ?? Number.NaN) ? "met" : "NOT MET";
}

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
    `Written by \`${meta.invocation}\` (${context.mode} mode) on ${meta.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC in ${meta.seconds.toFixed(0)} s.`,
    `Machine: ${meta.cpuCount} × ${meta.cpuModel}, Node ${process.version}, ${process.platform}. turnloop ${revision(context.root)}.`,
    `Peak RSS and CPU time of child processes: ${meta.memoryMethod === "gnu-time" ? "GNU `/usr/bin/time -v`" : "polling /proc/<pid>/status (VmHWM)"}; wall times: monotonic clock from spawn to exit, in the benchmark process.`,
    "",
    "**Noise.** Other engineers were running test suites on this 2-core machine during these runs, so",
    "wall-clock figures are inflated and noisy; the 1-minute load average before → after each group is",
    "in the table (1.0 = one core busy). CPU time (1c) is less sensitive to load than wall time. Rerun",
    "on a quiet machine before reading small differences.",
    "",
    "Scenario (issue 6): one prompt, `What does notes.md say?`, that takes two model turns and one",
    "`view` of a small file, against the fake model of `bench/fake-model.mjs` (OpenAI Chat Completions",
    "SSE on 127.0.0.1; instant unless a row says 50 tokens/s). Values are medians unless the figure",
    "names a percentile. `× floor` is how many times its floor's cost a figure is (for rates: floor",
    "rate / our rate).",
    "",
    "## Figures",
    "",
    "| # | figure | result | spread | target | status | floor | × floor | runs | load 1 min |",
    "|---|---|---|---|---|---|---|---|---|---|",
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
            ? `pending: ${row.pending}`
            : status;
    add(
      `| ${row.id} | ${cell(row.figure)} | ${value} | ${cell(spread)} | ${cell(row.target?.text ?? "— (information)")} | ${cell(shownStatus)} | ${cell(floor)} | ${formatRatio(ratioToFloor(row))} | ${cell(row.runs)} | ${row.load ?? "—"} |`,
    );
  }

  const pending = rows.filter((row) => row.pending !== undefined);
  if (pending.length > 0) {
    add("", "## Not measurable yet", "");
    for (const row of pending) {
      add(`- **${row.id}** ${row.figure}: ${row.pending}`);
    }
    add(
      "",
      "The measuring code for these is in place (`bench/faces.mjs`: an ACP client over stdio and a",
      "Copilot-SDK-style JSON-RPC client over `--headless --stdio`); the rows fill in by themselves once",
      "`turnloop acp` and `turnloop --headless` answer.",
    );
  }

  add("", "## Where the time and memory go", "");
  addDiagnostics(add, context);

  const notes = notesForUnmetTargets(context);
  if (notes.length > 0) {
    add("", "## Notes on targets not met", "");
    for (const note of notes) {
      add(`### ${note.title}`, "", ...note.lines, "");
    }
  }

  add(
    "## Commands",
    "",
    "Each figure's command. `run.mjs` starts the fake model server (`bench/fake-model.mjs`, in a",
    "worker thread) at `$FAKE_MODEL` (http://127.0.0.1:<random port>), creates the scenario",
    "repository `$REPO` (`notes.md`, `src/index.js`; see `bench/scenario.mjs`) and an empty",
    "`$TL_HOME`, all in a temporary folder removed at the end. Child-process figures run under",
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
    "| group | before (1, 5, 15 min) | after |",
    "|---|---|---|",
  );
  for (const load of context.loads) {
    add(`| ${load.group} | ${load.before} | ${load.after} |`);
  }
  add("");
  // Sections other benchmarks write into this file survive a full run: the session view's
  // (bench/viewer.mjs) and the `<!-- keep:NAME -->` ones (bench/compaction.mjs).
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  const viewer = viewerSection(current);
  add(...(viewer === "" ? [] : [viewer, ""]), ...keptSections(current), "");
  writeFileSync(path, lines.join("\n"));
}

/** The `<!-- keep:NAME -->` … `<!-- /keep:NAME -->` sections of `text`. */
export function keptSections(text) {
  return [...text.matchAll(/<!-- keep:([a-z-]+) -->[\s\S]*?<!-- \/keep:\1 -->\n?/g)].map((match) =>
    match[0].trimEnd(),
  );
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
  if (details.whatIf !== undefined) {
    add(
      `**What if: V8 flags** (the one-prompt run, medians of ${details.whatIf.runs} runs of each, variants alternating so they share the load; undici, behind \`fetch\`, parses HTTP with a WebAssembly llhttp, which V8 also compiles with TurboFan on a background thread; \`--liftoff-only\` skips that):`,
      "",
      "| command | wall | CPU | peak RSS | last response → exit |",
      "|---|---|---|---|---|",
    );
    for (const variant of details.whatIf.variants) {
      add(
        `| \`${variant.name}\` | ${formatDuration(variant.wall)} | ${formatDuration(variant.cpu)} | ${formatBytes(variant.rss)} | ${formatDuration(variant.shutdown)} |`,
      );
    }
    add("");
  }
  if (details.imports !== undefined) {
    add(
      "**Import cost**, each module alone in a fresh process (`node --expose-gc bench/in-process.mjs",
      "import '{\"specifier\": …}'`; time of `await import()`, RSS added):",
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
  if (details.modules !== undefined) {
    const describe = (count) =>
      `${count.total} (${Object.entries(count.perBucket)
        .sort((a, b) => b[1] - a[1])
        .map(([where, number]) => `${where.replace(/^package /, "")} ${number}`)
        .join(", ")})`;
    add(
      "**ES modules loaded** (a resolve hook counts every module; `node bench/in-process.mjs module-count …`):",
      `for \`-p\` up to the first request (\`dist/cli/prompt-command.js\` + \`@ai-sdk/openai-compatible\`): ${describe(details.modules.prompt)}; for \`turnloop acp\` (\`dist/acp/main.js\`): ${describe(details.modules.acp)}.`,
      "",
    );
  }
  if (details.rssBreakdown !== undefined) {
    add(
      "**RSS breakdown**, layers of `-p` imported one after the other in one process (after a full GC;",
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

/**
 * Where the RSS growth between two memory samples went: V8 enlarging its heap, or memory outside
 * the JavaScript heap.
 * @param {{turn: number, heapUsed: number, heapTotal: number, rss: number, external: number}} from
 * @param {{turn: number, heapUsed: number, heapTotal: number, rss: number, external: number}} to
 * @param {{rssPerTurn: number, lastRequestBytes: number}} memory
 */
function rssNote(from, to, memory) {
  const rssGrowth = to.rss - from.rss;
  const heapGrowth = to.heapTotal - from.heapTotal + (to.external - from.external);
  const where =
    rssGrowth > 0 && heapGrowth >= rssGrowth / 2
      ? `mostly V8 enlarging its heap (heap total ${formatBytes(from.heapTotal)} → ${formatBytes(to.heapTotal)}, of which used ${formatBytes(from.heapUsed)} → ${formatBytes(to.heapUsed)}): room for garbage, not live data`
      : `outside the JavaScript heap (heap total ${formatBytes(from.heapTotal)} → ${formatBytes(to.heapTotal)}, external + array buffers ${formatBytes(from.external)} → ${formatBytes(to.external)}): native allocations such as the allocator's arenas, compiled code and HTTP buffers`;
  return `- From turn ${from.turn} to ${to.turn}, RSS goes ${formatBytes(from.rss)} → ${formatBytes(to.rss)} (slope ${formatBytes(memory.rssPerTurn)}/turn), ${where}. Each request serializes and sends the whole history (the last one ${formatBytes(memory.lastRequestBytes)}), so the transient copies made for one request grow with the history. The fake model runs in another process, so none of this is the server's.`;
}

/**
 * One note per group of unmet targets, built from the measurements: where the time or memory goes.
 * @param {import("./groups/common.mjs").Context} context
 * @returns {Array<{title: string, lines: string[]}>}
 */
function notesForUnmetTargets(context) {
  const { details, rows } = context;
  const unmet = new Set(rows.filter((row) => statusOf(row) === "NOT MET").map((row) => row.id));
  const notes = [];
  const importOf = (specifier) => details.imports?.find((entry) => entry.specifier === specifier);
  const topBuckets = (profile, count) =>
    (profile?.buckets ?? [])
      .filter((entry) => entry.bucket !== "(idle)")
      .slice(0, count)
      .map((entry) => `${entry.bucket} ${formatDuration(entry.milliseconds)}`)
      .join(", ");

  if (unmet.has("1a") || unmet.has("1e")) {
    const phases = details.onePrompt?.phases ?? {};
    const startup = Object.values(phases)[0] ?? Number.NaN;
    const lines = [
      `- Start-up (spawn → first request received) takes ${formatDuration(startup)} of the ${formatDuration(percentile(details.onePrompt?.walls ?? [], 0.5))} median${details.nodeFloor === undefined ? "" : `; \`node -e 0\` alone takes ${formatDuration(details.nodeFloor.wall)}`}.`,
    ];
    const prompt = importOf("dist/cli/prompt-command.js");
    const compatible = importOf("@ai-sdk/openai-compatible");
    const zod = importOf("zod");
    if (prompt !== undefined && compatible !== undefined) {
      lines.push(
        `- Imports on the way to the first request: \`dist/cli/prompt-command.js\` ${formatDuration(prompt.milliseconds)} (of which \`zod\` alone ${formatDuration(zod?.milliseconds)}), then \`@ai-sdk/openai-compatible\` ${formatDuration(compatible.milliseconds)} (loaded lazily, but still before the first request).`,
      );
    }
    if (details.modules !== undefined) {
      lines.push(
        `- ${details.modules.prompt.total} ES modules load before the first request, ${details.modules.prompt.perBucket["package zod"] ?? 0} of them zod's and ${details.modules.prompt.perBucket["turnloop dist/"] ?? 0} turnloop's own; each costs a resolve, a read and a compile.`,
      );
    }
    if (details.profiles?.onePrompt !== undefined) {
      lines.push(`- CPU profile, self time: ${topBuckets(details.profiles.onePrompt, 7)}.`);
    }
    const [normal, liftoff] = details.whatIf?.variants ?? [];
    if (normal !== undefined && liftoff !== undefined) {
      lines.push(
        `- Exit waits for V8's background TurboFan compile of undici's WebAssembly HTTP parser: last response → exit ${formatDuration(normal.shutdown)} normally, ${formatDuration(liftoff.shutdown)} with \`node --liftoff-only\` (wall ${formatDuration(normal.wall)} → ${formatDuration(liftoff.wall)}, same load, alternating runs). A tiny fetch script shows the same wait.`,
      );
    }
    const gap = Object.entries(phases)[2];
    if (gap !== undefined) {
      lines.push(
        `- The gap between the two model turns (loop + \`view\`) takes ${formatDuration(gap[1])}; see figure 3 for its parts.`,
      );
    }
    notes.push({ title: "1a / 1e one-prompt wall time", lines });
  }
  if (unmet.has("1b")) {
    const steps = details.rssBreakdown ?? [];
    notes.push({
      title: "1b one-prompt peak RSS",
      lines: [
        `- \`node -e 0\` peaks at ${formatBytes(details.nodeFloor?.rss)} by itself.`,
        ...(steps.length > 0
          ? [
              `- RSS after each layer is imported: ${steps.map((step) => `${step.step}: ${formatBytes(step.rssBytes)}`).join("; ")}.`,
              "- The rest of the peak is the run itself (fetch/undici buffers, the stream pipeline, the JIT, the session), and V8 heap headroom.",
            ]
          : []),
        ...(details.whatIf === undefined
          ? []
          : [
              `- TurboFan's compile of undici's WebAssembly HTTP parser is a large part of that rest: peak RSS ${details.whatIf.variants.map((variant) => `${formatBytes(variant.rss)} with \`${variant.name}\``).join(", ")} (table "What if: V8 flags").`,
            ]),
      ],
    });
  }
  if (unmet.has("2a")) {
    const argumentsImport = importOf("dist/cli/arguments.js");
    notes.push({
      title: "2a `--version`",
      lines: [
        details.nodeFloor !== undefined && details.nodeFloor.wall > 60
          ? `- \`node -e 0\` alone takes ${formatDuration(details.nodeFloor.wall)} on this machine, already over the 60 ms target: on this machine no program that starts Node can meet it; what turnloop adds on top is the difference to this floor.`
          : `- \`node -e 0\` takes ${formatDuration(details.nodeFloor?.wall)} of it on this machine.`,
        ...(argumentsImport === undefined
          ? []
          : [
              `- \`dist/cli/arguments.js\` (imported before \`--version\` is answered) costs ${formatDuration(argumentsImport.milliseconds)} to import.`,
            ]),
      ],
    });
  }
  if (unmet.has("3a") || unmet.has("3b")) {
    const spans = details.turnOverhead?.spans ?? {};
    notes.push({
      title: "3a / 3b per-turn overhead",
      lines: [
        `- Main-thread CPU per turn, without the tool's: p50 ${formatDuration(spans.cpuPerTurnWithoutTool)} (figure 3c), against ${formatDuration(rows.find((row) => row.id === "3c")?.floor?.value)} for the tiny fetch loop: most of the overhead is work, not only waiting for a CPU.`,
        `- Of the median gap of ${formatDuration(spans.gap)}: the \`view\` tool ${formatDuration(spans.tool)}; response end → \`assistant.turn_end\` ${formatDuration(spans.responseEndToTurnEnd)} (the AI SDK finishing the stream through our fetch wrapper, the reply assembled, events written); turn end → tool start ${formatDuration(spans.turnEndToToolStart)}; tool end → next request at the server ${formatDuration(spans.toolEndToNextRequest)} (history → AI SDK prompt, tool schemas, JSON body, fetch).`,
        ...(details.requestLayers !== undefined
          ? [
              `- One short request costs, in main-thread CPU: ${details.requestLayers.layers.map((layer) => `${layer.layer} ${formatDuration(layer.cpuMillisecondsPerRequest)}`).join("; ")} (table "One short model request, layer by layer"). Each step up is what that layer adds per turn.`,
            ]
          : []),
        ...(details.profiles?.turns !== undefined
          ? [`- CPU profile of 200 turns, self time: ${topBuckets(details.profiles.turns, 7)}.`]
          : []),
        ...(details.memory !== undefined
          ? [
              `- The overhead grows with the history: p50 ${formatDuration(details.memory.overheadFirst)} over the first tenth of the long session's turns, ${formatDuration(details.memory.overheadLast)} over the last (every request re-converts and re-sends the whole history).`,
            ]
          : []),
      ],
    });
  }
  if (unmet.has("4a") || unmet.has("4b") || unmet.has("4c")) {
    const layers = details.layers ?? [];
    notes.push({
      title: "4a–4c streaming relay",
      lines: [
        ...(layers.length > 0
          ? [
              `- Deltas/s through each layer (figure "Relay, layer by layer"): ${layers.map((layer) => `${layer.layer} ${Math.round(layer.deltasPerSecond).toLocaleString("en-US")}`).join("; ")}. Each step down is what that layer costs.`,
            ]
          : []),
        ...(details.profiles?.relay !== undefined
          ? [
              `- CPU profile of the relay, self time: ${topBuckets(details.profiles.relay, 8)}.`,
              `- Busiest turnloop functions in it: ${details.profiles.relay.turnloopFunctions
                .slice(0, 3)
                .map((entry) => `\`${entry.name}\` ${formatDuration(entry.milliseconds)}`)
                .join(", ")}.`,
            ]
          : []),
      ],
    });
  }
  if (unmet.has("7a") || unmet.has("7b")) {
    const acpImport = importOf("dist/acp/main.js");
    const sdkImport = importOf("@agentclientprotocol/sdk");
    const lines = [];
    if (details.nodeFloor !== undefined) {
      lines.push(
        `- \`node -e 0\` takes ${formatDuration(details.nodeFloor.wall)} of the start-up here.`,
      );
    }
    if (acpImport !== undefined) {
      lines.push(
        `- Importing \`dist/acp/main.js\` costs ${formatDuration(acpImport.milliseconds)} and ${formatBytes(acpImport.rssAddedBytes)} before \`initialize\` can be answered (\`@agentclientprotocol/sdk\` alone ${formatDuration(sdkImport?.milliseconds)}, \`zod\` alone ${formatDuration(importOf("zod")?.milliseconds)})${details.modules === undefined ? "" : `; it loads ${details.modules.acp.total} ES modules (zod ${details.modules.acp.perBucket["package zod"] ?? 0}, turnloop ${details.modules.acp.perBucket["turnloop dist/"] ?? 0}, the ACP SDK ${details.modules.acp.perBucket["package @agentclientprotocol/sdk"] ?? 0})`}.`,
      );
    }
    lines.push(
      "- The prompt then pays what `-p` pays (figure 1a): the provider package import, the first fetch, the loop.",
    );
    if (details.profiles?.acp !== undefined) {
      lines.push(
        `- CPU profile of the ACP run, self time: ${topBuckets(details.profiles.acp, 7)}.`,
      );
    }
    notes.push({ title: "7a / 7b ACP start-up", lines });
  }
  if (unmet.has("7d")) {
    const row = rows.find((candidate) => candidate.id === "7d");
    const headless = details.headless;
    const perTurn =
      headless === undefined ? Number.NaN : headless.allIdleMilliseconds / headless.turns;
    notes.push({
      title: "7d 100 concurrent sessions",
      lines: [
        `- p10–p90 ${formatDuration(row?.spread?.low)} – ${formatDuration(row?.spread?.high)}. ${headless?.turns ?? "?"} model requests were answered ${formatDuration(headless?.allIdleMilliseconds)} after the prompts were sent, ${formatDuration(perTurn)} of server time per request, with all sessions on one event loop: a turn waits behind the stream parsing, event writing and notifications of the other sessions, so the tail is that queue (compare 3c, the CPU one turn costs).`,
      ],
    });
  }
  if (unmet.has("5a")) {
    const row = rows.find((candidate) => candidate.id === "5a");
    const functions = details.profiles?.resume?.turnloopFunctions ?? [];
    notes.push({
      title: "5a resume",
      lines: [
        `- The floor (read the ${formatBytes(details.resume?.bytes)} file, split it, \`JSON.parse\` each line) takes ${formatDuration(row?.floor?.value)}; \`Session.resume\` takes ${formatDuration(row?.value)}. It keeps ${formatBytes(details.resume?.heapRetained)} of heap for the history.`,
        ...(details.profiles?.resume !== undefined
          ? [
              `- CPU profile, self time: ${topBuckets(details.profiles.resume, 7)}. (The bench/ part is the floor, run first in the same process.)`,
              `- Busiest turnloop functions: ${functions
                .slice(0, 4)
                .map((entry) => `\`${entry.name}\` ${formatDuration(entry.milliseconds)}`)
                .join(
                  ", ",
                )}: per line, a Buffer view, a UTF-8 check, a string copy, \`JSON.parse\` and the envelope checks.`,
            ]
          : []),
      ],
    });
  }
  if (unmet.has("5b") || unmet.has("5c")) {
    const points = details.memory?.points ?? [];
    const turns = points.at(-1)?.turn ?? 0;
    const from = points.find((point) => point.turn >= turns / 2) ?? points[0];
    const to = points.at(-1);
    notes.push({
      title: "5b / 5c memory over a long session",
      lines: [
        `- Over the second half of the session, heap used grows ${formatBytes(details.memory?.heapPerTurn)}/turn and the log ${formatBytes(details.memory?.logPerTurn)}/turn: the heap holds the history and little else.`,
        ...(from !== undefined && to !== undefined ? [rssNote(from, to, details.memory)] : []),
      ],
    });
  }
  if (unmet.has("6")) {
    const request = details.firstRequest;
    notes.push({
      title: "6 first request size",
      lines: [
        `- System prompt ${formatBytes(request?.systemBytes)}, tool definitions ${formatBytes(request?.toolsBytes)}: ${(request?.toolSizes ?? []).map((tool) => `${tool.name} ${tool.bytes} B`).join(", ")}.`,
      ],
    });
  }
  return notes;
}
