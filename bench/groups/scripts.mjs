/**
 * The benchmarks that run as scripts of their own (`node bench/<name>.mjs`), wired into the full
 * run: each runs in a child process; what it prints on stdout becomes its section of RESULTS.md
 * (`context.sections`), and its figures with a target are read back from that output into rows
 * of the figures table, each with its met / not met status (script-targets.mjs); a script that
 * exits non-zero gets one FAILED row. A script that needs something this machine lacks
 * (PostgreSQL, bubblewrap, Chromium, util-linux `script`) is not run, and its row says
 * "not run: <reason>". `acp-memory` is read into figure rows (JSON lines).
 */

import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { postgresBinaries } from "../../scripts/postgres-server.mjs";
import { runMeasured } from "../child.mjs";
import { percentile } from "../statistics.mjs";
import { minToMax } from "./common.mjs";
import { SCRIPT_TARGETS } from "./script-targets.mjs";

/** @typedef {import("./common.mjs").Context} Context */

const MIB = 1024 * 1024;
/** A script running longer than this is stopped (SIGTERM) and its row marked FAILED. */
const SCRIPT_TIMEOUT_MILLISECONDS = 8 * 60 * 1000;

/** Whether `program` is an executable file in one of the folders of `PATH`. */
function onPath(program) {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .some((folder) => folder !== "" && existsSync(join(folder, program)));
}

/**
 * Runs `node bench/<script> …arguments` from the repository (bench/child.mjs, not measured, so
 * that the timeout's SIGTERM reaches the script); resolves with its exit code (128 when a signal
 * ended it), the signal, stdout and the end of its stderr (stderr is also passed through, for
 * progress).
 * @param {Context} context
 * @param {string[]} argv
 */
async function runScript(context, argv) {
  const result = await runMeasured(process.execPath, argv, {
    cwd: context.root,
    timeoutMilliseconds: SCRIPT_TIMEOUT_MILLISECONDS,
    timeoutSignal: "SIGTERM",
    passStderr: true,
    measure: false,
  });
  return { ...result, code: result.code ?? 128 };
}

/** The last non-empty line of `text`, shortened, for a FAILED or "not run" cell. */
function lastLine(text) {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return (lines.at(-1) ?? "no output").replace(/\s+/g, " ").slice(0, 200);
}

/**
 * The scripts wired in, in the order they run. `requires` answers why the script cannot run
 * here, or undefined when it can.
 * @type {Array<{group: string, title: string, argv: (mode: "quick" | "full") => string[],
 *   requires?: () => string | undefined}>}
 */
const SCRIPTS = [
  {
    group: "listing",
    title: "Listing sessions (`session/list` over 1,000 sessions, one of them 50 MB)",
    argv: (mode) => ["bench/listing.mjs", ...(mode === "quick" ? ["--quick"] : [])],
  },
  {
    group: "interactive",
    title: "Interactive face (`turnloop` with no arguments)",
    argv: (mode) => ["bench/interactive.mjs", ...(mode === "quick" ? ["--quick"] : [])],
    requires: () => (onPath("script") ? undefined : "util-linux `script` is not installed"),
  },
  {
    group: "compaction",
    title: "Compaction decision per request",
    argv: () => ["bench/compaction.mjs"],
  },
  {
    group: "viewer",
    title: "Session view (`turnloop sessions view`)",
    argv: (mode) => ["bench/viewer.mjs", ...(mode === "quick" ? ["--turns", "2000"] : [])],
    requires: () =>
      existsSync(process.env.TURNLOOP_CHROMIUM ?? "/usr/bin/chromium")
        ? undefined
        : "no Chromium at /usr/bin/chromium (TURNLOOP_CHROMIUM names another)",
  },
  {
    group: "sandbox",
    title: "Sandbox overhead per command",
    // 30 pairs per command (the script alone: 100) keep the full run near 20 minutes.
    argv: (mode) => ["bench/sandbox.mjs", "--runs", mode === "quick" ? "10" : "30"],
    requires: () => (onPath("bwrap") ? undefined : "bubblewrap (`bwrap`) is not installed"),
  },
  {
    group: "scale",
    title: "Many workers: the chaos trial on PostgreSQL",
    argv: (mode) => ["bench/run.mjs", "scale", "--sessions", mode === "quick" ? "100" : "1000"],
    requires: () =>
      process.env.TURNLOOP_BENCH_DATABASE_URL !== undefined || postgresBinaries() !== undefined
        ? undefined
        : "no PostgreSQL server on this machine (or set TURNLOOP_BENCH_DATABASE_URL)",
  },
];

/** Names of the script groups, for run.mjs's list of groups. */
export const SCRIPT_GROUPS = ["acp-memory", ...SCRIPTS.map((script) => script.group)];

/**
 * Runs one script group: its output becomes a section, its row points at it.
 * @param {Context} context
 * @param {string} group
 */
export async function benchScript(context, group) {
  if (group === "acp-memory") {
    await benchAcpMemory(context);
    return;
  }
  const script = SCRIPTS.find((candidate) => candidate.group === group);
  if (script === undefined) {
    throw new Error(`no script group ${group}`);
  }
  const argv = script.argv(context.mode);
  const command = `node ${argv.join(" ")}`;
  const row = { id: group, figure: `${script.title}: see its section`, unit: "ms", command };
  const missing = script.requires?.();
  if (missing !== undefined) {
    context.rows.push({ ...row, runs: "—", pending: `not run: ${missing}` });
    context.sections.push({ group, title: script.title, command, text: `Not run: ${missing}.` });
    return;
  }
  const started = performance.now();
  const result = await runScript(context, argv);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const text = result.stdout.replace(/<!-- \/?keep:[a-z-]+ -->\n?/g, "").trim();
  context.sections.push({ group, title: script.title, command, text, seconds });
  if (result.code !== 0) {
    const failed = `exit ${result.code}${result.signal ? ` (${result.signal})` : ""}: ${lastLine(result.stderr)}`;
    context.rows.push({ ...row, runs: `one run, ${seconds} s`, failed });
    return;
  }
  // The figures with a target, read back from what the script printed (script-targets.mjs).
  for (const judged of SCRIPT_TARGETS[group]?.(text, argv) ?? []) {
    context.rows.push({
      ...row,
      ...judged,
      figure: `${judged.figure} (see "${script.title}")`,
      runs: `${judged.runs}, in one run of ${seconds} s`,
    });
  }
}

/**
 * Issue 27 item 3: `bench/acp-memory.mjs` a few times per prompt size; rows of the peak RSS over
 * idle against ≤ 4 × the prompt (its floor is the prompt line, so × floor is the multiple) and of
 * the dropped over-limit line against the README's bound (about twice the 128 MiB limit).
 * @param {Context} context
 */
async function benchAcpMemory(context) {
  const quick = context.mode === "quick";
  const sizes = quick
    ? [
        [10, 1],
        [50, 1],
      ]
    : [
        [10, 3],
        [50, 3],
        [100, 1],
      ];
  for (const [megabytes, runs] of sizes) {
    const command = `node bench/acp-memory.mjs --prompt-mb ${megabytes} --dropped-mb 0`;
    const prompts = await acpMemoryRuns(context, command, runs);
    const over = prompts.map((prompt) => prompt.peakOverIdleMiB * MIB);
    context.rows.push({
      id: `27.3 ${megabytes} MB`,
      figure: `ACP agent, one ${prompts[0]?.lineMiB} MiB \`session/prompt\` line: peak RSS over idle`,
      unit: "bytes",
      value: percentile(over, 0.5),
      spread: minToMax(over),
      target: { text: "≤ 4 × the prompt", met: (value, floor) => value <= 4 * floor },
      floor: { value: (prompts[0]?.lineMiB ?? Number.NaN) * MIB, label: "the prompt line" },
      runs: String(runs),
      command,
    });
  }
  const command = "node bench/acp-memory.mjs --prompt-mb 0 --dropped-mb 300";
  const [dropped] = await acpMemoryRuns(context, command, 1);
  context.rows.push({
    id: "27.3 dropped",
    figure: `ACP agent, one ${dropped?.lineMiB} MiB line over the 128 MiB limit (dropped): peak RSS over idle`,
    unit: "bytes",
    value: (dropped?.peakOverIdleMiB ?? Number.NaN) * MIB,
    target: {
      text: "≤ 256 MiB (README: about twice the limit)",
      met: (value) => value <= 256 * MIB,
    },
    runs: "1",
    command,
  });
}

/** `runs` runs of an acp-memory command; the case each printed (one per run). */
async function acpMemoryRuns(context, command, runs) {
  const cases = [];
  for (let run = 0; run < runs; run += 1) {
    const result = await runScript(context, command.split(" ").slice(1));
    const printed = result.stdout.split("\n").filter((line) => line.startsWith("{"));
    if (result.code !== 0 || printed.length !== 1) {
      throw new Error(`${command} failed (exit ${result.code}): ${lastLine(result.stderr)}`);
    }
    cases.push(JSON.parse(printed[0]));
  }
  return cases;
}
