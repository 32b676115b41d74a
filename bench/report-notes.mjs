/**
 * "Notes on targets not met" in bench/RESULTS.md: for each group of unmet targets, where the time
 * or memory goes, from this run's measurements and profiles; then the short hand-written notes kept in
 * bench/notes/not-met.md (one section per target not met). Also each row's status.
 */

import { existsSync, readFileSync } from "node:fs";
import { formatBytes, formatDuration } from "./format.mjs";
import { percentile } from "./statistics.mjs";

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
export function notesForUnmetTargets(context) {
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
    const promptFiles = details.loadedFiles?.prompt;
    if (promptFiles !== undefined) {
      lines.push(
        `- The whole run loads ${promptFiles.files} files (${promptFiles.bundleFiles} of turnloop's bundle, holding ${promptFiles.sourceModules} source modules; the rest from packages outside the bundle), each costing a resolve, a read and a compile, and asks for ${promptFiles.builtins} of Node's built-in modules by name (those load Node's internal modules in turn, which are not counted here).`,
      );
    }
    if (details.profiles?.onePrompt !== undefined) {
      lines.push(`- CPU profile, self time: ${topBuckets(details.profiles.onePrompt, 7)}.`);
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
              "- These layers are the unbundled modules `tsc` writes; the `bin` loads the bundle. The rest of the peak is the run itself (the HTTP request, the stream pipeline, the JIT, the session), and V8 heap headroom.",
            ]
          : []),
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
        `- Main-thread CPU per turn, without the tool's: p50 ${formatDuration(spans.cpuPerTurnWithoutTool)} (figure 3c), against ${formatDuration(rows.find((row) => row.id === "3c")?.floor?.value)} for the tiny node:http loop: most of the overhead is work, not only waiting for a CPU.`,
        `- Of the median gap of ${formatDuration(spans.gap)}: the \`view\` tool ${formatDuration(spans.tool)}; response end → \`assistant.turn_end\` ${formatDuration(spans.responseEndToTurnEnd)} (the AI SDK finishing the stream through our fetch wrapper, the reply assembled, events written); turn end → tool start ${formatDuration(spans.turnEndToToolStart)}; tool start → tool running ${formatDuration(spans.toolStartToRunning)} (permission gate, the log's checkpoint); tool end → next request written ${formatDuration(spans.toolEndToNextRequest)} (history → AI SDK prompt, tool schemas, JSON body, fetch).`,
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
              `- The overhead grows with the history: p50 ${formatDuration(details.memory.overheadFirst)} over the first tenth of the long session's turns, ${formatDuration(details.memory.overheadLast)} over the last (every request re-sends the whole history; each message is converted once, src/llm/convert.ts).`,
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
        `- Importing the unbundled \`dist/acp/main.js\` costs ${formatDuration(acpImport.milliseconds)} and ${formatBytes(acpImport.rssAddedBytes)} (\`@agentclientprotocol/sdk\` alone ${formatDuration(sdkImport?.milliseconds)}, \`zod\` alone ${formatDuration(importOf("zod")?.milliseconds)}); the \`bin\` loads the bundle instead.`,
      );
    }
    const acpFiles = details.loadedFiles?.acp;
    if (acpFiles !== undefined) {
      lines.push(
        `- The whole ACP scenario loads ${acpFiles.files} files (${acpFiles.bundleFiles} of turnloop's bundle, holding ${acpFiles.sourceModules} source modules) and asks for ${acpFiles.builtins} of Node's built-in modules by name.`,
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
      title: `7d ${headless?.sessions ?? "?"} concurrent sessions`,
      lines: [
        `- p10–p90 ${formatDuration(row?.spread?.low)} – ${formatDuration(row?.spread?.high)}. ${headless?.turns ?? "?"} model requests were answered ${formatDuration(headless?.allIdleMilliseconds)} after the prompts were sent, ${formatDuration(perTurn)} of wall time per request and ${formatDuration((headless?.sendOnCpuMilliseconds ?? Number.NaN) / (headless?.turns ?? Number.NaN))} of the server's main-thread CPU, with all sessions on one event loop: a turn waits behind the stream parsing, event writing and notifications of the other sessions, so the tail is that queue (compare 3c, the CPU one turn costs).`,
        `- Floor: the same requests from ${headless?.sessions ?? "?"} tiny \`node:http\` loops in one process (bench/headless-floor.mjs) wait p99 ${formatDuration(headless?.floor?.p99)} between an answer's end and the next request's arrival, at ${formatDuration(headless?.floor?.cpuPerRequest)} of CPU per request, and inside their process, answer parsed → next request sent, p99 ${formatDuration(headless?.floor?.inClient?.p99)}: what is left of their wall gap is the machine (both processes' turns on a loaded CPU, the fake model's thread). Turnloop's own part, inside the server (\`assistant.message\` → next \`assistant.turn_start\`, less each tool call from its \`tool.execution_start\` or later \`permission.completed\` to its \`tool.execution_complete\`: the SDK face does not send \`tool.execution_running\`, so the permission check, hooks and the log's sync before a run are left out too): p50 ${formatDuration(headless?.inServer?.p50)}, p99 ${formatDuration(headless?.inServer?.p99)}. The fake model starts each answer after a time to first token spread over a range (bench/groups/common.mjs), so the sessions' answers arrive spread out, not all at once from its one thread.`,
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

/**
 * The hand-written notes, one short section per target not met, kept in bench/notes/not-met.md and
 * included whole. The dated log of every session's measurements is bench/notes/targets.md.
 */
const TARGET_NOTES = new URL("notes/not-met.md", import.meta.url);

/**
 * "Notes on targets not met": the notes generated from this run's measurements, then the
 * hand-written, profile-backed ones of bench/notes/not-met.md (its title and preamble left out).
 * @param {(...lines: string[]) => void} add
 * @param {import("./groups/common.mjs").Context} context
 */
export function addNotes(add, context) {
  add("", "## Notes on targets not met", "");
  for (const note of notesForUnmetTargets(context)) {
    add(`### ${note.title} (from this run)`, "", ...note.lines, "");
  }
  if (existsSync(TARGET_NOTES)) {
    const text = readFileSync(TARGET_NOTES, "utf8");
    const firstNote = text.indexOf("\n### ");
    add(
      "Hand-written, profile-backed notes, kept in `bench/notes/not-met.md` (its figures are from the",
      "measurement each line names; this run's are in the table above; the dated log of every",
      "session's measurements is `bench/notes/targets.md`):",
      "",
      (firstNote === -1 ? text.replace(/^# .*\n+/, "") : text.slice(firstNote + 1)).trim(),
      "",
    );
  }
}
