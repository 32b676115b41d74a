#!/usr/bin/env node
/**
 * turnloop benchmarks (issue 6, issue 26). Run after `npm run build`:
 *
 *   node bench/run.mjs            full mode: every group, then the whole of bench/RESULTS.md
 *                                 (about 20 minutes on 2 cores)
 *   node bench/run.mjs --quick    fewer runs and smaller sizes, for use while developing
 *   node bench/run.mjs --only one-prompt,relay    some groups only (RESULTS.md then holds those)
 *   node bench/run.mjs --only viewer --print      the report on stdout; RESULTS.md stays as it
 *                                                 was (what the scripts write into it is undone)
 *   node bench/run.mjs scale [--sessions N]       the many-workers chaos trial (bench/scale.mjs)
 *
 * The groups after `diagnostics` are scripts of their own (bench/groups/scripts.mjs: acp-memory,
 * listing, interactive, compaction, viewer, sandbox, scale); one that needs what this machine
 * lacks (PostgreSQL, bubblewrap, Chromium) is listed as "not run: <reason>". The hand-written
 * notes on targets not met are kept in bench/notes/not-met.md and included in RESULTS.md; the
 * dated log of every session's measurements is bench/notes/targets.md.
 *
 * Every benchmark talks to the fake model server of fake-model.mjs (OpenAI Chat Completions SSE
 * on 127.0.0.1, instant or at 50 tokens/s), in the issue's scenario: one prompt that takes two
 * model turns and one file read. Whole-process figures run the built CLI as a child process;
 * in-process figures run in-process.mjs in a fresh process each. Results, with the target, the
 * floor and the command of each figure, go to bench/RESULTS.md.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadAverage, memoryMethod } from "./child.mjs";
import { benchAcp } from "./groups/acp.mjs";
import { benchDirectory, MODES } from "./groups/common.mjs";
import { benchDiagnostics } from "./groups/diagnostics.mjs";
import { benchScript, SCRIPT_GROUPS } from "./groups/scripts.mjs";
import { benchHeadless, benchMemory, benchResume } from "./groups/sessions.mjs";
import { benchOnePrompt, benchVersion } from "./groups/start-up.mjs";
import { benchRelay, benchTurnOverhead } from "./groups/turns.mjs";
import { writeReport } from "./report.mjs";
import { createScenarioRepository } from "./scenario.mjs";

/** @typedef {import("./groups/common.mjs").Context} Context */
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
  ...SCRIPT_GROUPS,
];

const USAGE = [
  `usage: node bench/run.mjs [--quick] [--print] [--only ${GROUPS.join(",")}]`,
  "       node bench/run.mjs scale [--sessions N]",
  "After `npm run build`. Runs every group (full mode: about 20 minutes on 2 cores) and writes",
  "the whole of bench/RESULTS.md; hand-written notes on targets not met: bench/notes/not-met.md.",
  "--quick: fewer runs, without the diagnostics and the scripts unless named with --only.",
  "--print: the report goes to stdout and bench/RESULTS.md is left as it was (the scripts write",
  "their sections into it; that is undone), to run a group without rewriting it.",
].join("\n");

/** @param {string[]} argv */
function parseArguments(argv) {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = argv.includes("--quick");
  const onlyIndex = argv.indexOf("--only");
  const only = onlyIndex === -1 ? GROUPS : (argv[onlyIndex + 1] ?? "").split(",");
  const unknown = only.filter((group) => !GROUPS.includes(group));
  if (
    unknown.length > 0 ||
    argv.some((arg) => arg.startsWith("--") && !["--quick", "--only", "--print"].includes(arg))
  ) {
    process.stderr.write(
      `${USAGE}\n${unknown.length > 0 ? `unknown group: ${unknown.join(", ")}\n` : ""}`,
    );
    process.exit(64);
  }
  return {
    mode: /** @type {"quick" | "full"} */ (quick ? "quick" : "full"),
    only,
    explicit: onlyIndex !== -1,
    print: argv.includes("--print"),
  };
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
  ...Object.fromEntries(
    SCRIPT_GROUPS.map((group) => [group, (context) => benchScript(context, group)]),
  ),
};

/**
 * Runs one group, timing it and noting the load before and after on its rows; a group that throws
 * gets one row saying so and the run goes on.
 * @param {Context} context
 * @param {string} group
 */
async function runGroup(context, group) {
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
  const seconds = ((performance.now() - groupStarted) / 1000).toFixed(0);
  context.loads.push({ group, before, after, seconds });
  for (const row of context.rows.slice(rowsBefore)) {
    row.load = `${before.split(" ")[0]} → ${after.split(" ")[0]}`;
  }
  process.stderr.write(
    `bench: ${group} done in ${((performance.now() - groupStarted) / 1000).toFixed(1)} s\n`,
  );
}

/**
 * Writes bench/RESULTS.md, or with --print writes the report to stdout and puts back
 * RESULTS.md as it was (`kept`); removes the scratch folder.
 * @param {Context} context
 * @param {{print: boolean, results: string, kept: string | undefined, started: number,
 *   startedAt: Date}} run
 */
function finishRun(context, { print, results, kept, started, startedAt }) {
  const output = print ? join(context.temp, "RESULTS.md") : results;
  try {
    writeReport(output, context, {
      startedAt,
      seconds: (performance.now() - started) / 1000,
      memoryMethod: memoryMethod(),
      cpuModel: cpus()[0]?.model ?? "unknown CPU",
      cpuCount: cpus().length,
      invocation: `node bench/run.mjs${process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(" ")}` : ""}`,
    });
    if (print) {
      process.stdout.write(readFileSync(output, "utf8"));
    }
    process.stderr.write(
      `bench: ${print ? "printed the report" : `wrote ${output}`} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
  } finally {
    if (kept !== undefined && readFileSync(results, "utf8") !== kept) {
      writeFileSync(results, kept);
    }
    rmSync(context.temp, { recursive: true, force: true });
  }
}

/**
 * A fresh context for one run, its scratch folder made in the system's temporary folder.
 * @param {"quick" | "full"} mode
 * @param {string} root
 * @param {string} dist
 * @param {string} cliPath
 * @returns {Context}
 */
function newContext(mode, root, dist, cliPath) {
  const temp = mkdtempSync(join(tmpdir(), "turnloop-bench-"));
  return {
    mode,
    settings: MODES[mode],
    root,
    dist,
    cliPath,
    temp,
    repo: join(temp, "repo"),
    home: join(temp, "turnloop-home"),
    rows: [],
    sections: [],
    details: {},
    loads: [],
  };
}

async function main() {
  if (process.argv[2] === "scale") {
    // The chaos trial of many workers (issue 22) runs on its own: `npm run bench -- scale`.
    await import("./scale.mjs");
    return;
  }
  const { mode, only, explicit, print } = parseArguments(process.argv.slice(2));
  const root = dirname(benchDirectory);
  const dist = join(root, "dist");
  const cliPath = join(dist, "cli", "main.js");
  if (!existsSync(cliPath)) {
    process.stderr.write(`bench: ${cliPath} is missing; run npm run build first\n`);
    process.exit(1);
  }
  const results = join(benchDirectory, "RESULTS.md");
  // With --print, RESULTS.md as it was, put back at the end (the scripts write their sections).
  const kept = print && existsSync(results) ? readFileSync(results, "utf8") : undefined;
  const context = newContext(mode, root, dist, cliPath);
  const { temp } = context;
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
      if (
        (group === "diagnostics" || SCRIPT_GROUPS.includes(group)) &&
        mode === "quick" &&
        !explicit
      ) {
        // Diagnostics and the scripts take minutes by themselves; quick mode skips them unless asked.
        continue;
      }
      await runGroup(context, group);
    }
    const failed = context.rows.filter((row) => row.failed !== undefined);
    for (const row of failed) {
      process.stderr.write(`bench: ${row.id} FAILED: ${row.failed}\n`);
      process.exitCode = 1;
    }
  } finally {
    finishRun(context, { print, results, kept, started, startedAt });
  }
}

await main();
