#!/usr/bin/env node
/**
 * Benchmarks of the interactive face (issue 15). Run after `npm run build`:
 *
 *   node bench/interactive.mjs            10 start-ups, 200 keypresses
 *   node bench/interactive.mjs --quick    3 start-ups, 60 keypresses
 *
 * The CLI runs in a real pseudo-terminal (util-linux `script`), 80×24, against the fake model of
 * fake-model.mjs in a worker thread. Figures:
 * - spawn → input box drawn: from `spawn()` to the first output chunk that holds the status line
 *   under the input box (the screen is complete); floor: the same `script` running `node -e` that
 *   prints one line.
 * - keypress → echo p50/p99 while a reply streams at 50 tokens/s: one `x` written every 40 ms to
 *   the terminal; latency until the input box line holding that many `x` is written back. (`x`
 *   appears nowhere else on the screen.)
 * - idle CPU: user + system CPU of the CLI over 3 s with the input box open and nothing typed,
 *   2 s after it was drawn.
 * Prints a Markdown table and writes it into its section of bench/RESULTS.md (run.mjs keeps it).
 */

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModelWorker } from "./fake-model.mjs";
import { percentile } from "./statistics.mjs";
import { INTERACTIVE_MARKERS, withMarkedSection } from "./viewer-section.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const CLI = join(here, "..", "dist", "cli", "main.js");
const quick = process.argv.includes("--quick");
const STARTS = quick ? 3 : 10;
const KEYPRESSES = quick ? 60 : 200;
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

/** Starts `command` in an 80×24 pseudo-terminal; `output` collects what it writes. */
function inTerminal(command, env, cwd) {
  const child = spawn("script", ["-qfec", `stty cols 80 rows 24; exec ${command}`, "/dev/null"], {
    cwd,
    env: { ...env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const session = { child, output: "", listeners: new Set() };
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    session.output += chunk;
    for (const listener of session.listeners) {
      listener(chunk);
    }
  });
  return session;
}

function waitForOutput(session, test, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    if (test(session.output)) {
      resolve(performance.now());
      return;
    }
    const timer = setTimeout(() => {
      session.listeners.delete(listener);
      reject(new Error(`timed out; output so far:\n${session.output.slice(-2000)}`));
    }, timeoutMs);
    const listener = () => {
      if (test(session.output)) {
        clearTimeout(timer);
        session.listeners.delete(listener);
        resolve(performance.now());
      }
    };
    session.listeners.add(listener);
  });
}

function stop(session) {
  return new Promise((resolve) => {
    session.child.on("close", resolve);
    session.child.stdin.write("\u0004");
    setTimeout(() => session.child.kill("SIGTERM"), 3000).unref();
  });
}

/** The CLI's pid: the node child of `script`. */
function cliPid(session) {
  const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(session.child.pid)], {
    encoding: "utf8",
  });
  const line = children.split("\n").find((entry) => /node/.test(entry));
  return Number(line?.trim().split(/\s+/)[0]);
}

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

const median = (values) => percentile(values, 0.5);
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

/** Writes the table, with the library choice and how it was measured, into bench/RESULTS.md. */
function writeSection(table, loadBefore, startStatus) {
  const path = join(here, "RESULTS.md");
  const when = new Date().toISOString().slice(0, 16).replace("T", " ");
  const section = [
    INTERACTIVE_MARKERS.start,
    "## Interactive face (`turnloop` with no arguments)",
    "",
    `Written by \`node bench/interactive.mjs${quick ? " --quick" : ""}\` on ${when} UTC, Node ${process.version}, ${cpus().length} cores; 1-minute load average ${loadBefore} → ${loadavg()[0]?.toFixed(2)} (other helpers' test suites were running: wall times are inflated).`,
    "The CLI runs in a real pseudo-terminal (util-linux `script`, 80×24) against the fake model of fake-model.mjs.",
    "",
    "**Library: `@mariozechner/pi-tui` 0.73.1.** Differential rendering into the normal screen (the",
    "conversation stays in the terminal's scrollback), bracketed paste with large pastes kept as one",
    "`[paste #N]` block, a multi-line editor with history and Tab completion, synchronized output, 5",
    'small dependencies, Node ≥ 20. Importing it costs ≈ 57 ms here (`node -e "await import(…)"`); `ink`',
    "would add React and Yoga's WebAssembly layout to every start. The input box is drawn before the",
    "agent's modules (providers, tools) load; typing before the session is open is kept and sent.",
    "What still comes before the box: checking whether a config file exists; zod, the files' schema,",
    "loads before the box only when one does (these runs have none).",
    "",
    table,
    "",
    startStatus,
    INTERACTIVE_MARKERS.end,
  ].join("\n");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  writeFileSync(path, withMarkedSection(text, INTERACTIVE_MARKERS, section));
}

async function main() {
  const loadBefore = loadavg()[0]?.toFixed(2);
  const model = await startFakeModelWorker({
    tokensPerSecond: 50,
    answerDeltas: 2000,
    toolTurns: 0,
  });
  const home = mkdtempSync(join(tmpdir(), "turnloop-bench-interactive-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "turnloop-bench-interactive-repo-"));
  writeFileSync(join(cwd, "notes.md"), "# notes\n");
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:bench-model",
    TURNLOOP_BASE_URL: model.baseUrl,
  };
  const drawn = (output) => /Enter send/.test(output);
  try {
    const starts = [];
    const floors = [];
    for (let run = 0; run <= STARTS; run++) {
      const floorStart = performance.now();
      const floor = inTerminal(`${process.execPath} -e 'console.log("Enter send")'`, env, cwd);
      floors.push((await waitForOutput(floor, drawn)) - floorStart);
      await new Promise((resolve) => floor.child.on("close", resolve));
      const started = performance.now();
      const session = inTerminal(`${process.execPath} ${CLI}`, env, cwd);
      starts.push((await waitForOutput(session, drawn)) - started);
      await stop(session);
    }
    // Run 0 warms the disk cache and writes turnloop's code cache (src/cli/code-cache.cts).
    starts.shift();
    floors.shift();

    const session = inTerminal(`${process.execPath} ${CLI}`, env, cwd);
    await waitForOutput(session, drawn);
    const pid = cliPid(session);
    // Let start-up finish (the host and session open after the box is drawn), then measure idle.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleBefore = cpuTicks(pid);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleCpuMs = ((cpuTicks(pid) - idleBefore) / TICKS) * 1000;

    session.child.stdin.write("Tell me about the notes\r");
    await waitForOutput(session, (output) => /The notes say the project/.test(output));
    const latencies = [];
    let length = 0;
    for (let count = 1; count <= KEYPRESSES; count++) {
      if (length === 60) {
        // Keep the line inside the box: clear it (Ctrl-U) and start a new run of x.
        session.child.stdin.write("\u0015");
        await waitForOutput(session, (output) => !/x{60}[^\n]*$/.test(output.slice(-400)));
        length = 0;
      }
      length++;
      const from = session.output.length;
      const written = performance.now();
      session.child.stdin.write("x");
      const run = "x".repeat(length);
      const echoed = await waitForOutput(
        session,
        (output) => output.indexOf(run, from - length) >= 0,
      );
      latencies.push(echoed - written);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await stop(session);
    const rows = [
      [
        "spawn → input box drawn (median)",
        ms(median(starts)),
        `${ms(Math.min(...starts))} – ${ms(Math.max(...starts))}`,
        "≤ 250 ms",
        ms(median(floors)),
        `${STARTS} runs (+1 warm-up, which writes turnloop's code cache)`,
      ],
      [
        "keypress → echo p50, reply streaming at 50 tokens/s",
        ms(percentile(latencies, 0.5)),
        "",
        "—",
        "",
        `${latencies.length} keypresses, one per 40 ms`,
      ],
      [
        "keypress → echo p99, reply streaming at 50 tokens/s",
        ms(percentile(latencies, 0.99)),
        `max ${ms(Math.max(...latencies))}`,
        "—",
        "",
        `${latencies.length} keypresses`,
      ],
      [
        "idle CPU, input box open, 3 s",
        `${idleCpuMs.toFixed(0)} ms CPU (${((idleCpuMs / 3000) * 100).toFixed(1)} %)`,
        "",
        "≈ 0",
        "",
        `/proc/<pid>/stat, ${TICKS} ticks/s`,
      ],
    ];
    const table = [
      "| figure | result | spread | target | floor | runs |",
      "|---|---|---|---|---|---|",
      ...rows.map((row) => `| ${row.join(" | ")} |`),
    ].join("\n");
    process.stdout.write(`${table}\n`);
    writeSection(
      table,
      loadBefore,
      `Spawn → input box: target ≤ 250 ms ${median(starts) <= 250 ? "met" : "**not met** in this run"} (median ${ms(median(starts))}, ${(median(starts) / median(floors)).toFixed(1)} × the floor of \`script\` running \`node -e\` that prints one line).`,
    );
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
