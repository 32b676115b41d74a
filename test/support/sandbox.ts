import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { writeInputs } from "../../src/tools/process-runner.js";
import { sandboxAvailability } from "../../src/tools/sandbox/index.js";
import type { CommandLine } from "../../src/tools/sandbox/policy.js";

/**
 * Whether the sandbox tests can run: bubblewrap works here. Where it does not, a test run outside
 * CI skips them and prints why; in CI (CI=true) that is a failure, since `.ci/run` installs it.
 */
export async function requireSandbox(): Promise<boolean> {
  const availability = await sandboxAvailability({ env: { PATH: process.env.PATH ?? "" } });
  if (availability.available) {
    return true;
  }
  const reason = `${availability.reason} ${availability.install}`;
  if (process.env.CI === "true") {
    throw new Error(`the sandbox tests must run in CI: ${reason}`);
  }
  process.stderr.write(`skipping the sandbox tests: ${reason}\n`);
  return false;
}

/** How a command spawned by {@link runCommandLine} ended, with its output. */
export interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  /**
   * stdout and stderr in the order they were read: two pipes keep no order between them, so a
   * test of a command that writes to both compares {@link RunStreams} instead.
   */
  output: string;
}

/** How a command ended, with what it wrote to stdout and to stderr, each whole. */
export interface RunStreams {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** A spawned command: its process (group leader) id, output so far, and its end. */
export interface RunningCommand {
  pid: number;
  output(): string;
  /** Resolves once some output contains `text`, or the command ended. */
  outputContains(text: string): Promise<void>;
  done: Promise<RunOutcome>;
  /** What each stream carried so far. */
  streams(): { stdout: string; stderr: string };
}

/**
 * Spawns a command line as a runner does (own process group, stdin closed, its inputs on file
 * descriptors 3 …, the given environment only) and collects its output; no timeout: a test that hangs hits vitest's.
 */
export function startCommandLine(
  line: CommandLine,
  options: { cwd: string; env: Record<string, string> },
): RunningCommand {
  const child = spawn(line.file, line.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", ...(line.inputs ?? []).map(() => "pipe" as const)],
  }) as ChildProcessByStdio<null, Readable, Readable>;
  writeInputs(child.stdio.slice(3), line.inputs ?? []);
  let output = "";
  const streams = { stdout: "", stderr: "" };
  const waiters: { text: string; resolve: () => void }[] = [];
  const onData = (chunk: Buffer): void => {
    output += chunk.toString("utf8");
    for (const waiter of waiters.filter((candidate) => output.includes(candidate.text))) {
      waiter.resolve();
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    streams.stdout += chunk.toString("utf8");
    onData(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    streams.stderr += chunk.toString("utf8");
    onData(chunk);
  });
  const done = new Promise<RunOutcome>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      for (const waiter of waiters) {
        waiter.resolve();
      }
      resolve({ exitCode, signal, output });
    });
  });
  const pid = child.pid;
  if (pid === undefined) {
    throw new Error(`${line.file} did not start`);
  }
  return {
    pid,
    output: () => output,
    outputContains: (text) =>
      output.includes(text) || child.exitCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ text, resolve })),
    done,
    streams: () => ({ ...streams }),
  };
}

/** {@link startCommandLine}, then its end with each stream whole. */
export async function runCommandStreams(
  line: CommandLine,
  options: { cwd: string; env: Record<string, string> },
): Promise<RunStreams> {
  const running = startCommandLine(line, options);
  const { exitCode, signal } = await running.done;
  return { exitCode, signal, ...running.streams() };
}

/** {@link startCommandLine}, then its end. */
export function runCommandLine(
  line: CommandLine,
  options: { cwd: string; env: Record<string, string> },
): Promise<RunOutcome> {
  return startCommandLine(line, options).done;
}

/**
 * Host process ids whose program name (argv[0]) is `name` (set with bash's `exec -a name`), or
 * starts with it when `name` ends with `*`.
 */
export function processesWith(name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const programName = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0] ?? "";
      const matches = name.endsWith("*")
        ? programName.startsWith(name.slice(0, -1))
        : programName === name;
      if (matches) {
        found.push(Number(entry));
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}
