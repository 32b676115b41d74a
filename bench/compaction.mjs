#!/usr/bin/env node
/**
 * How long the loop takes to decide whether to compact before a request (issue 12). Run after
 * `npm run build`:
 *
 *   node bench/compaction.mjs
 *
 * Folds sessions of 100, 1,000 and 10,000 tool turns (6 KB results) into a History, then times
 * `CompactionGuard.request` around a request that answers at once (the per-turn decision: the
 * token count from the meter, the threshold, the truncation check), against re-estimating the
 * whole view per turn (what the incremental meter avoids). Prints a Markdown table and keeps it
 * in bench/RESULTS.md (a section that `npm run bench` preserves).
 */

import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { CompactionGuard } from "../dist/agent/compaction-guard.js";
import { History } from "../dist/agent/history.js";
import { buildSystemPrompt } from "../dist/agent/system-prompt.js";
import { estimateMessageTokens } from "../dist/agent/token-estimate.js";
import { toolSpecifications } from "../dist/agent/tool-specifications.js";
import { builtinTools } from "../dist/tools/index.js";

const RESULT = "a line of a file, long enough to fill six kilobytes of tool output.\n".repeat(90);
const DECISIONS = 2_000;

function historyOf(turns) {
  const history = new History();
  let id = 0;
  const event = (type, data) => ({ type, data, id: String(id++), timestamp: "", parentId: null });
  history.apply(event("user.message", { content: "read everything", source: "user" }));
  for (let turn = 0; turn < turns; turn++) {
    const toolCallId = `call-${turn}`;
    const turnId = `turn-${turn}`;
    history.apply(event("assistant.turn_start", { turnId }));
    history.apply(
      event("assistant.message", {
        messageId: `m-${turn}`,
        content: "",
        toolRequests: [{ toolCallId, name: "view", arguments: { path: `file-${turn}` } }],
        finishReason: "tool-calls",
      }),
    );
    history.apply(
      event("assistant.usage", {
        model: "bench:model",
        turnId,
        inputTokens: 1_000,
        outputTokens: 20,
      }),
    );
    history.apply(
      event("tool.execution_complete", {
        toolCallId,
        toolName: "view",
        success: true,
        result: { content: RESULT },
      }),
    );
  }
  return history;
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

const microseconds = (ms) => `${(ms * 1_000).toFixed(1)} µs`;

const tools = toolSpecifications(builtinTools());
const systemPrompt = buildSystemPrompt({
  cwd: "/tmp",
  platform: "linux",
  date: new Date(0),
  autopilot: false,
});
const settings = {
  provider: { id: "bench:model", stream: () => [] },
  systemPrompt,
  contextWindow: 100_000_000,
};
const reply = { kind: "reply" };
const rows = [];
for (const turns of [100, 1_000, 10_000]) {
  const history = historyOf(turns);
  const guard = new CompactionGuard(
    settings,
    { history, emit: () => undefined },
    () => tools,
    new AbortController().signal,
  );
  const decision = [];
  for (let run = 0; run < DECISIONS; run++) {
    const started = performance.now();
    await guard.request(async () => reply);
    decision.push(performance.now() - started);
  }
  const full = [];
  for (let run = 0; run < Math.min(DECISIONS, 200); run++) {
    const started = performance.now();
    history.messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
    full.push(performance.now() - started);
  }
  const guardTimes = percentiles(decision);
  const fullTimes = percentiles(full);
  rows.push(
    `| ${turns} tool turns (${history.messages.length} messages) | ${microseconds(guardTimes.p50)} | ${microseconds(guardTimes.p99)} | ${microseconds(fullTimes.p50)} |`,
  );
}
const table = [
  "| session | decision p50 | decision p99 | re-estimating the whole view, p50 |",
  "|---|---|---|---|",
  ...rows,
].join("\n");
process.stdout.write(`${table}\n`);
const section = [
  "<!-- keep:compaction -->",
  "## Compaction decision (issue 12)",
  "",
  `Time \`CompactionGuard.request\` adds to a request to decide whether to compact (token count from`,
  "the incremental meter, threshold, truncation check), with the built-in tools' schemas; target:",
  "well inside the per-turn overhead budget (≤ 1 ms) whatever the session's length. Measured",
  `${new Date().toISOString().slice(0, 10)}, ${DECISIONS} decisions per row. Command: \`npm run build && node bench/compaction.mjs\`.`,
  "",
  table,
  "<!-- /keep:compaction -->",
].join("\n");
const path = new URL("RESULTS.md", import.meta.url);
const current = readFileSync(path, "utf8");
const pattern = /<!-- keep:compaction -->[\s\S]*?<!-- \/keep:compaction -->/;
writeFileSync(
  path,
  pattern.test(current)
    ? current.replace(pattern, section)
    : `${current.trimEnd()}\n\n${section}\n`,
);
