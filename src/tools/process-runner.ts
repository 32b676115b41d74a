import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { CommandOutput } from "./command-output.js";
import { CommandProcess, type ProcessOutcome } from "./command-process.js";
import type { CommandRequest, CommandResult, CommandRunner } from "./command-runner.js";
import { statIfExists } from "./tool-support.js";

/** Characters of output a result shows by default; the full output beyond that goes to a file. */
export const MAX_OUTPUT_CHARACTERS = 30_000;

/** The program and arguments that run one command. */
export interface ProcessArgv {
  file: string;
  args: string[];
  /**
   * Data the program reads on file descriptors 3, 4, … in order (each a pipe, written whole and
   * closed at the start), e.g. the seccomp filter of bwrap's `--seccomp 3`.
   */
  inputs?: readonly Uint8Array[];
  /**
   * Each called, before the run's result, with all the program (and what it started) wrote on
   * one more pipe once every holder closed it; their file descriptors follow the inputs' (3 +
   * their count, then the next …): bwrap's `--json-status-fd`, the sandbox's count of processes a
   * command left running (sandbox/left-running.ts). Not called when the program could not be
   * started.
   */
  readers?: readonly ((text: string) => void)[];
}

/** How a {@link ProcessRunner} starts its commands; every member is optional. */
export interface ProcessRunnerOptions {
  /**
   * The argv that runs `command`. Default `bash -c command`; a sandbox wraps it
   * (`bwrap … bash -c command`) and keeps everything else of this runner.
   */
  wrap?: (command: string) => ProcessArgv;
  /** Characters of output a result shows (head and tail); default {@link MAX_OUTPUT_CHARACTERS}. */
  maxOutputCharacters?: number;
  /** See {@link CommandRunner.description}; default `bash`. */
  description?: string;
}

/** `bash -c command`: the default {@link ProcessRunnerOptions.wrap}. */
export function bashArgv(command: string): ProcessArgv {
  return { file: "bash", args: ["-c", command] };
}

/**
 * The {@link CommandRunner} that runs a command as a local process: the argv of
 * {@link ProcessRunnerOptions.wrap} (default `bash -c`) as the leader of its own process group,
 * stdin closed, in exactly `request.env`. On timeout or cancel the whole group gets SIGTERM, then
 * SIGKILL two seconds later; background children that keep the pipes open after the command
 * exited are cut off after a short grace and their group ended. The group is listed with the
 * reaper of group-reaper.ts, which SIGKILLs it if turnloop itself dies (kill -9 included). Output beyond the limit keeps its
 * head and tail and is saved whole to `request.savePath`. Never rejects.
 */
export class ProcessRunner implements CommandRunner {
  readonly description: string;
  readonly stopDescription = "its process group was killed";
  private readonly wrap: (command: string) => ProcessArgv;
  private readonly maxOutputCharacters: number;

  constructor(options: ProcessRunnerOptions = {}) {
    this.wrap = options.wrap ?? bashArgv;
    this.maxOutputCharacters = options.maxOutputCharacters ?? MAX_OUTPUT_CHARACTERS;
    this.description = options.description ?? "bash";
  }

  async run(command: string, request: CommandRequest): Promise<CommandResult> {
    const cwdStats = statIfExists(request.cwd);
    if (!cwdStats?.isDirectory()) {
      return notStarted(`Working directory ${request.cwd} does not exist.`);
    }
    const { file, args, inputs = [], readers = [] } = this.wrap(command);
    const extraPipes = inputs.length + readers.length;
    // Loaded with the first command: a run that starts none never loads it (issue 26).
    const { spawn } = await import("node:child_process");
    const reaper = await import("./group-reaper.js");
    reaper.startGroupReaper(spawn);
    const child = spawn(file, args, {
      cwd: request.cwd,
      detached: true,
      stdio: [
        "ignore",
        "pipe",
        "pipe",
        ...Array.from({ length: extraPipes }, () => "pipe" as const),
      ],
      env: { ...request.env },
      // Pipes for stdout, stderr and the inputs, so stdout and stderr are never null.
    }) as ChildProcessByStdio<null, Readable, Readable>;
    if (child.pid !== undefined) {
      reaper.watchGroup(child.pid);
    }
    writeInputs(child.stdio.slice(3), inputs);
    const read = readers.map((_, index) => readAll(child.stdio[3 + inputs.length + index]));
    let watched: CommandProcess | undefined;
    const output = new CommandOutput(
      this.maxOutputCharacters,
      request.savePath,
      request.secrets,
      (paused) => watched?.setPaused(paused),
    );
    watched = new CommandProcess(child, output, {
      signal: request.signal,
      onGroupEnded: reaper.forgetGroup,
      ...(request.onOutput === undefined ? {} : { onOutput: request.onOutput }),
    });
    const outcome = await watched.wait(request.timeoutMs);
    const text = await output.finish();
    if (outcome.kind !== "spawn-failed") {
      const texts = await Promise.all(read);
      for (const [index, reader] of readers.entries()) {
        reader(texts[index] ?? "");
      }
    }
    return resultOf(outcome, text, output.cut, file);
  }
}

/**
 * Writes each of `inputs` whole into its pipe and closes it. A program that exits before reading
 * one breaks its pipe: that error is its own outcome's business, not a crash.
 */
export function writeInputs(
  pipes: readonly (Readable | Writable | null | undefined)[],
  inputs: readonly Uint8Array[],
): void {
  inputs.forEach((input, index) => {
    const pipe = pipes[index];
    if (pipe !== null && pipe !== undefined && "end" in pipe) {
      pipe.on("error", () => {});
      pipe.end(input);
    }
  });
}

/** All `pipe` carries until it closes, as UTF-8 (`""` for no pipe, or on its error). */
function readAll(pipe: Readable | Writable | null | undefined): Promise<string> {
  if (pipe === null || pipe === undefined || !("read" in pipe)) {
    return Promise.resolve("");
  }
  const chunks: Buffer[] = [];
  pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    pipe.on("error", () => resolve(""));
    pipe.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function resultOf(
  outcome: ProcessOutcome,
  output: string,
  truncated: boolean,
  file: string,
): CommandResult {
  switch (outcome.kind) {
    case "exited":
      return {
        exitCode: outcome.code,
        signal: outcome.signal,
        output,
        truncated,
        ...(outcome.backgroundStopped === undefined
          ? {}
          : { backgroundStopped: outcome.backgroundStopped }),
        ...(outcome.leftRunning.length === 0 ? {} : { leftRunning: outcome.leftRunning }),
      };
    case "timed-out":
    case "cancelled":
      return {
        exitCode: null,
        signal: null,
        output,
        truncated,
        stopped: outcome.kind === "timed-out" ? "timeout" : "cancelled",
        ...(outcome.leftRunning.length === 0 ? {} : { leftRunning: outcome.leftRunning }),
      };
    case "spawn-failed":
      return notStarted(`Could not start ${file}: ${outcome.message}`);
  }
}

function notStarted(startError: string): CommandResult {
  return { exitCode: null, signal: null, output: "", truncated: false, startError };
}
