/**
 * Runs a command as a child process and measures it: wall time (monotonic clock, spawn → exit),
 * peak RSS and CPU time. Peak RSS and CPU come from GNU `/usr/bin/time -v -o <file>` when it works
 * here; otherwise from polling `/proc/<pid>/status` (VmHWM) and `/proc/<pid>/stat` while the child
 * lives, which can miss the last few milliseconds.
 */

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const GNU_TIME = "/usr/bin/time";

/** @type {"gnu-time" | "proc-polling" | undefined} */
let detectedMethod;

/**
 * How peak RSS is measured on this machine: `gnu-time` when `/usr/bin/time -v -o` works, else
 * `proc-polling`.
 * @returns {"gnu-time" | "proc-polling"}
 */
export function memoryMethod() {
  if (detectedMethod === undefined) {
    const directory = mkdtempSync(join(tmpdir(), "turnloop-bench-time-"));
    try {
      const report = join(directory, "report");
      execFileSync(GNU_TIME, ["-v", "-o", report, process.execPath, "-e", "0"], {
        stdio: "ignore",
      });
      detectedMethod = /Maximum resident set size/.test(readFileSync(report, "utf8"))
        ? "gnu-time"
        : "proc-polling";
    } catch {
      detectedMethod = "proc-polling";
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return detectedMethod;
}

/**
 * @typedef {object} ChildResult
 * @property {number | null} code The exit code, null when a signal ended the child.
 * @property {NodeJS.Signals | null} signal The signal that ended the child, if one did.
 * @property {string} stdout
 * @property {string} stderr All of it, or with `passStderr` its last {@link STDERR_TAIL} characters.
 * @property {number} spawnedAt Monotonic ms just before spawn.
 * @property {number} exitedAt Monotonic ms when the exit was seen.
 * @property {number} wallMilliseconds
 * @property {number} peakRssBytes NaN with `measure: false`.
 * @property {number} cpuMilliseconds User + system CPU time of the child; NaN with `measure: false`.
 */

/**
 * @typedef {object} RunOptions
 * @property {string} [cwd]
 * @property {NodeJS.ProcessEnv} [env]
 * @property {number} [timeoutMilliseconds] The child is sent `timeoutSignal` after this long
 *   (default 60 s).
 * @property {NodeJS.Signals} [timeoutSignal] Default SIGKILL.
 * @property {boolean} [passStderr] Also write the child's stderr to ours as it comes (progress of
 *   a long script), keeping only its end in the result.
 * @property {boolean} [measure] Peak RSS and CPU time (default true); false runs the command
 *   itself, not under `/usr/bin/time`, so that `timeoutSignal` reaches it.
 */

/** How much of a child's stderr is kept with `passStderr`: its end, for a failure message. */
const STDERR_TAIL = 4000;

/**
 * Starts a protocol peer (`turnloop acp`, `turnloop --headless --stdio`) on piped stdio: its
 * stderr is collected for error messages, and a write to its closed stdin is not an error.
 * @param {string} command @param {string[]} args @param {{cwd?: string, env?: NodeJS.ProcessEnv}} options
 * @returns {{child: import("node:child_process").ChildProcessWithoutNullStreams, stderr: () => string}}
 */
export function spawnPeer(command, args, options) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text) => {
    stderr += text;
  });
  child.stdin.on("error", () => undefined);
  return { child, stderr: () => stderr };
}

/**
 * Runs `command args` (no shell) and measures it.
 * @param {string} command
 * @param {string[]} args
 * @param {RunOptions} [options]
 * @returns {Promise<ChildResult>}
 */
export async function runMeasured(command, args, options = {}) {
  const method = options.measure === false ? undefined : memoryMethod();
  const reportDirectory =
    method === "gnu-time" ? mkdtempSync(join(tmpdir(), "turnloop-bench-time-")) : undefined;
  const report = reportDirectory === undefined ? undefined : join(reportDirectory, "report");
  const [file, fileArgs] =
    report === undefined ? [command, args] : [GNU_TIME, ["-v", "-o", report, command, ...args]];
  const spawnedAt = monotonicMilliseconds();
  const child = spawn(file, fileArgs, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = collectOutput(child, options.passStderr === true);
  const polled = { peakRssBytes: Number.NaN, cpuMilliseconds: Number.NaN };
  const poller =
    method === "proc-polling"
      ? setInterval(() => Object.assign(polled, readProcessSample(child.pid)), 2)
      : undefined;
  const timer = setTimeout(
    () => child.kill(options.timeoutSignal ?? "SIGKILL"),
    options.timeoutMilliseconds ?? 60_000,
  );
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  const exitedAt = monotonicMilliseconds();
  clearTimeout(timer);
  clearInterval(poller);
  await output.closed;
  const measured = report === undefined ? polled : readTimeReport(report);
  if (reportDirectory !== undefined) {
    rmSync(reportDirectory, { recursive: true, force: true });
  }
  return {
    code: typeof code === "number" ? code : null,
    signal: signal ?? null,
    stdout: output.stdout(),
    stderr: output.stderr(),
    spawnedAt,
    exitedAt,
    wallMilliseconds: exitedAt - spawnedAt,
    ...measured,
  };
}

/**
 * Collects a child's stdout whole and its stderr (whole, or passed through and its end kept).
 * @param {import("node:child_process").ChildProcessWithoutNullStreams} child
 * @param {boolean} passStderr
 */
function collectOutput(child, passStderr) {
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text) => {
    if (passStderr) {
      process.stderr.write(text);
      stderr = (stderr + text).slice(-STDERR_TAIL);
    } else {
      stderr += text;
    }
  });
  const closed = new Promise((resolve) => {
    if (child.stdout.readableEnded && child.stderr.readableEnded) {
      resolve(undefined);
    } else {
      child.once("close", () => resolve(undefined));
    }
  });
  return { closed, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Peak RSS and CPU time from a GNU `time -v` report file.
 * @param {string} report
 * @returns {{peakRssBytes: number, cpuMilliseconds: number}}
 */
function readTimeReport(report) {
  const text = readFileSync(report, "utf8");
  const user = Number(/User time \(seconds\): ([\d.]+)/.exec(text)?.[1]);
  const system = Number(/System time \(seconds\): ([\d.]+)/.exec(text)?.[1]);
  return {
    peakRssBytes: Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(text)?.[1]) * 1024,
    cpuMilliseconds: (user + system) * 1000,
  };
}

/**
 * VmHWM and CPU time of a live process from /proc.
 * @param {number | undefined} pid
 * @returns {{peakRssBytes: number, cpuMilliseconds: number} | undefined}
 */
function readProcessSample(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const peak = Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1]) * 1024;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { peakRssBytes: peak, cpuMilliseconds: ticks * 10 };
  } catch {
    return undefined;
  }
}

/**
 * Runs `node --expose-gc bench/in-process.mjs <name> <options>` and returns its JSON answer.
 * @param {string} name
 * @param {object} options
 * @param {string[]} [nodeFlags] Extra flags for node, e.g. `--cpu-prof`.
 * @returns {Promise<any>}
 */
export async function runInProcess(name, options, nodeFlags = []) {
  const script = new URL("./in-process.mjs", import.meta.url).pathname;
  const result = await runMeasured(
    process.execPath,
    ["--expose-gc", ...nodeFlags, script, name, JSON.stringify(options)],
    { timeoutMilliseconds: 300_000 },
  );
  if (result.code !== 0) {
    throw new Error(
      `in-process benchmark ${name} failed (${result.code}): ${result.stderr.trim()}`,
    );
  }
  const lastLine = result.stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(lastLine);
}

/**
 * The 1, 5 and 15 minute load averages of the machine (`/proc/loadavg`).
 * @returns {string}
 */
export function loadAverage() {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

/** @returns {number} */
function monotonicMilliseconds() {
  return Number(process.hrtime.bigint()) / 1e6;
}
