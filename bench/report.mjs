/**
 * Writes bench/RESULTS.md from the rows and details gathered by run.mjs: the figures table (median,
 * spread, target, floor, ratio, load), the commands, where the time and memory go, notes on every
 * target not met, and what cannot be measured yet.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cell, formatRatio, formatValue } from "./format.mjs";
import { addDiagnostics } from "./report-diagnostics.mjs";
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
