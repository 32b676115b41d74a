import { type ChildProcessByStdio, spawn } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import { API_KEY_VARIABLES } from "../llm/models.js";
import { CommandOutput } from "./command-output.js";
import {
  type ClientCapabilities,
  defineTool,
  type ToolContext,
  type ToolResult,
} from "./define-tool.js";
import { errorResult, runGuarded, statIfExists, textResult } from "./tool-support.js";

/** Timeout when the model gives none, in seconds. */
const DEFAULT_TIMEOUT_SECONDS = 120;
/** Longest timeout a call may ask for, in seconds; larger values are lowered to it. */
const MAX_TIMEOUT_SECONDS = 600;
/** Characters of output given to the model; the full output beyond that goes to a file. */
const MAX_OUTPUT_CHARACTERS = 30_000;
/** Time between SIGTERM and SIGKILL for a process group being stopped, in ms. */
const KILL_ESCALATION_MS = 2_000;
/** After bash exits, how long its pipes may stay open (background children) before we stop reading, in ms. */
const OUTPUT_GRACE_MS = 200;
/** After SIGKILL, how long to wait for the exit before answering anyway, in ms. */
const EXIT_DEADLINE_MS = 1_000;
/** Least time between two partial-output reports, in ms. */
const PARTIAL_RESULT_INTERVAL_MS = 100;

const bashInput = z.object({
  command: z.string(),
  description: z.string().optional().describe("A few words on what the command does"),
  timeout: z.number().positive().optional().describe("Seconds (default 120, max 600)"),
});

/** Arguments of {@link bashTool}, as Copilot CLI's shell tool takes them. */
export type BashInput = z.infer<typeof bashInput>;

/**
 * `bash {command, description?, timeout?}`: runs `bash -c command` in the session's cwd as its own
 * process group, stdin closed, in turnloop's environment without the provider API keys
 * ({@link commandEnvironment}). Answers stdout and stderr interleaved, then
 * `<exited with exit code N>` (Copilot CLI's format). A non-zero exit is not an error result;
 * a timeout (seconds), a cancel or a failure to start is. Runs in the client's terminal instead
 * when the client offers `runCommand`.
 */
export const bashTool = defineTool<BashInput>({
  name: "bash",
  description:
    "Run a bash command in the working directory. Returns stdout and stderr interleaved, then the " +
    "exit code. stdin is closed. Long output keeps its start and end; the rest is saved to a file.",
  input: bashInput,
  kind: "execute",
  mutates: true,
  execute: (input, context) => runGuarded("Command", context.signal, () => runBash(input, context)),
  scope: (input, cwd) => ({ title: `Run ${input.command}`, paths: [cwd], command: input.command }),
});

type ProcessOutcome =
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null }
  | { kind: "timed-out" }
  | { kind: "cancelled" }
  | { kind: "spawn-failed"; message: string };

async function runBash(input: BashInput, context: ToolContext): Promise<ToolResult> {
  const timeoutSeconds = Math.min(input.timeout ?? DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS);
  const savePath = join(
    context.sessionDirectory,
    "tool-outputs",
    `${context.toolCallId.replace(/[^A-Za-z0-9_.-]/g, "_")}.txt`,
  );
  const client = context.client;
  if (client?.runCommand !== undefined) {
    const runCommand = client.runCommand.bind(client);
    return runInClientTerminal(runCommand, input.command, context, timeoutSeconds, savePath);
  }
  const cwdStats = await statIfExists(context.cwd);
  if (!cwdStats?.isDirectory()) {
    return errorResult(`Working directory ${context.cwd} does not exist.`);
  }
  const child = spawn("bash", ["-c", input.command], {
    cwd: context.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: commandEnvironment(process.env),
  });
  let commandProcess: CommandProcess | undefined;
  const output = new CommandOutput(MAX_OUTPUT_CHARACTERS, savePath, (paused) =>
    commandProcess?.setPaused(paused),
  );
  commandProcess = new CommandProcess(child, output, context);
  const outcome = await commandProcess.wait(timeoutSeconds * 1_000);
  const text = await output.finish();
  const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  switch (outcome.kind) {
    case "exited":
      return withExitCode(
        textResult(`${body}${describeExit(outcome.code, outcome.signal)}`),
        outcome.code,
      );
    case "timed-out":
      return errorResult(
        `${body}Command timed out after ${timeoutSeconds} s; its process group was killed.`,
      );
    case "cancelled":
      return errorResult(`${body}Command cancelled; its process group was killed.`);
    case "spawn-failed":
      return errorResult(`Could not start bash: ${outcome.message}`);
  }
}

/**
 * The environment of a command: turnloop's, without the provider API keys it reads
 * ({@link API_KEY_VARIABLES}), and with pagers off (`PAGER=cat`, `GIT_PAGER=cat`: stdin is closed).
 */
export function commandEnvironment(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...environment, PAGER: "cat", GIT_PAGER: "cat" };
  for (const name of API_KEY_VARIABLES) {
    delete result[name];
  }
  return result;
}

/**
 * Runs the command in the client's terminal (ACP `terminal/*`): the client enforces the timeout
 * and kills on abort; we shape its answer like a local run (same exit line, same head-and-tail
 * cut with the full output saved to `savePath`), noting when the terminal itself dropped output.
 */
async function runInClientTerminal(
  runCommand: NonNullable<ClientCapabilities["runCommand"]>,
  command: string,
  context: ToolContext,
  timeoutSeconds: number,
  savePath: string,
): Promise<ToolResult> {
  const timeoutMs = timeoutSeconds * 1_000;
  const started = Date.now();
  const result = await runCommand(command, {
    cwd: context.cwd,
    timeoutMs,
    signal: context.signal,
    toolCallId: context.toolCallId,
  });
  const output = new CommandOutput(MAX_OUTPUT_CHARACTERS, savePath);
  output.append(Buffer.from(result.output), result.output);
  const text = await output.finish();
  const dropped = result.truncated
    ? "[The terminal kept only the end of the output; earlier output was dropped.]\n"
    : "";
  const body = `${dropped}${text === "" || text.endsWith("\n") ? text : `${text}\n`}`;
  if (context.signal.aborted) {
    return errorResult(`${body}Command cancelled; the client stopped it.`);
  }
  if (result.exitCode === null && Date.now() - started >= timeoutMs) {
    return errorResult(
      `${body}Command timed out after ${timeoutSeconds} s; the client stopped it.`,
    );
  }
  return withExitCode(
    textResult(`${body}${describeExit(result.exitCode, result.signal)}`),
    result.exitCode,
  );
}

function withExitCode(result: ToolResult, exitCode: number | null): ToolResult {
  return exitCode === null ? result : { ...result, exitCode };
}

function describeExit(code: number | null, signal: string | null): string {
  if (code === null) {
    return `<exited after signal ${signal ?? "unknown"}>`;
  }
  return `<exited with exit code ${code}>`;
}

/**
 * Process groups of commands that may still have processes: a command's group is listed from its
 * start until it ended on its own, or until the last SIGKILL after a stop.
 */
const liveGroups = new Set<number>();

/**
 * SIGKILLs every command's process group that may still be running, for a process about to exit
 * at once (a second Ctrl-C): no child that ignores SIGTERM outlives us.
 */
export function killCommandProcessGroups(): void {
  for (const pid of liveGroups) {
    signalGroup(pid, "SIGKILL");
  }
  liveGroups.clear();
}

/** Sends `signal` to every process in the group led by `pid`; a group already gone is fine. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) {
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has exited.
  }
}

/**
 * Watches one spawned command until it has exited and its output is read, enforcing the timeout
 * and the cancel signal by killing the whole process group (SIGTERM, then SIGKILL).
 */
class CommandProcess {
  private stopReason: "timed-out" | "cancelled" | undefined;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly decoders = {
    stdout: new StringDecoder("utf8"),
    stderr: new StringDecoder("utf8"),
  };
  private paused = false;
  private lastPartialAt = 0;
  private partialTimer: NodeJS.Timeout | undefined;
  private settle: (outcome: ProcessOutcome) => void = () => {};
  private settled = false;

  constructor(
    private readonly child: ChildProcessByStdio<null, Readable, Readable>,
    private readonly output: CommandOutput,
    private readonly context: ToolContext,
  ) {}

  /** Resolves once the command is over; never rejects. `timeoutMs` is in milliseconds. */
  wait(timeoutMs: number): Promise<ProcessOutcome> {
    return new Promise((resolve) => {
      this.settle = resolve;
      const { child, context } = this;
      child.stdout.on("data", (chunk: Buffer) => this.onChunk(chunk, this.decoders.stdout));
      child.stderr.on("data", (chunk: Buffer) => this.onChunk(chunk, this.decoders.stderr));
      child.on("error", (error) => {
        if (child.pid === undefined) {
          this.finish({ kind: "spawn-failed", message: errorMessage(error) });
        }
      });
      child.on("exit", (code, signal) => {
        this.exitStatus = { code, signal };
        this.startGraceTimer();
      });
      child.on("close", () => this.finish(undefined));
      if (child.pid !== undefined) {
        liveGroups.add(child.pid);
      }
      this.startTimer(timeoutMs, () => this.stop("timed-out"));
      context.signal.addEventListener("abort", this.onAbort, { once: true });
      if (context.signal.aborted) {
        this.stop("cancelled");
      }
    });
  }

  private readonly onAbort = (): void => this.stop("cancelled");

  /** Pauses reading while the saved-output file catches up (memory stays bounded). */
  setPaused(paused: boolean): void {
    this.paused = paused;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (paused) {
        stream.pause();
      } else {
        stream.resume();
      }
    }
  }

  /**
   * Background children may hold the pipes open forever: once bash has exited, give the output a
   * moment, then stop reading. Output we are holding back ourselves (paused) is waited for.
   */
  private startGraceTimer(): void {
    this.startTimer(OUTPUT_GRACE_MS, () => {
      if (this.paused) {
        this.startGraceTimer();
      } else {
        this.abandonPipes();
      }
    });
  }

  private onChunk(chunk: Buffer, decoder: StringDecoder): void {
    this.output.append(chunk, decoder.write(chunk));
    this.reportPartial();
  }

  private reportPartial(): void {
    const report = this.context.onPartialResult;
    if (report === undefined || this.partialTimer !== undefined) {
      return;
    }
    const wait = this.lastPartialAt + PARTIAL_RESULT_INTERVAL_MS - Date.now();
    this.partialTimer = setTimeout(
      () => {
        this.partialTimer = undefined;
        this.lastPartialAt = Date.now();
        if (!this.settled) {
          report(this.output.preview());
        }
      },
      Math.max(wait, 0),
    );
  }

  private stop(reason: "timed-out" | "cancelled"): void {
    if (this.stopReason !== undefined || this.settled) {
      return;
    }
    this.stopReason = reason;
    signalGroup(this.child.pid, "SIGTERM");
    this.startTimer(KILL_ESCALATION_MS, () => {
      signalGroup(this.child.pid, "SIGKILL");
      this.startTimer(EXIT_DEADLINE_MS, () => this.abandonPipes());
    });
  }

  /** Stops reading pipes that stay open after bash exited, and ends the group holding them. */
  private abandonPipes(): void {
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    signalGroup(this.child.pid, "SIGTERM");
    const pid = this.child.pid;
    setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_ESCALATION_MS).unref();
    this.finish(undefined);
  }

  private startTimer(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, delayMs);
    this.timers.add(timer);
  }

  private finish(failure: ProcessOutcome | undefined): void {
    if (this.settled) {
      return;
    }
    this.settled = true;
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    clearTimeout(this.partialTimer);
    this.context.signal.removeEventListener("abort", this.onAbort);
    for (const decoder of [this.decoders.stdout, this.decoders.stderr]) {
      const rest = decoder.end();
      if (rest !== "") {
        this.output.append(Buffer.alloc(0), rest);
      }
    }
    const pid = this.child.pid;
    if (this.stopReason !== undefined) {
      // Children that ignored SIGTERM may outlive bash: make sure the group ends.
      setTimeout(() => {
        signalGroup(pid, "SIGKILL");
        if (pid !== undefined) {
          liveGroups.delete(pid);
        }
      }, KILL_ESCALATION_MS).unref();
    } else if (pid !== undefined) {
      liveGroups.delete(pid);
    }
    this.settle(failure ?? this.outcomeAfterExit());
  }

  private outcomeAfterExit(): ProcessOutcome {
    if (this.stopReason !== undefined) {
      return { kind: this.stopReason };
    }
    return {
      kind: "exited",
      code: this.exitStatus?.code ?? null,
      signal: this.exitStatus?.signal ?? null,
    };
  }
}
