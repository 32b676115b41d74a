import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { errorMessage } from "../events/errors.js";
import type { CommandOutput } from "./command-output.js";
import { leftRunning, outputEnds, pipeHolders, type StoppedProcess } from "./pipe-holders.js";

/** Time between SIGTERM and SIGKILL for a process group being stopped, in ms. */
const KILL_ESCALATION_MS = 2_000;
/** After the command's own process exits, how long its pipes may stay open (background children) before we stop reading, in ms. */
const OUTPUT_GRACE_MS = 200;
/** After SIGKILL, how long to wait for the exit before answering anyway, in ms. */
const EXIT_DEADLINE_MS = 1_000;
/** Least time between two partial-output reports, in ms. */
const PARTIAL_OUTPUT_INTERVAL_MS = 100;

/** How a watched process ended. */
export type ProcessOutcome =
  | {
      kind: "exited";
      code: number | null;
      signal: NodeJS.Signals | null;
      /** Background processes still holding the output after the grace, which were stopped. */
      backgroundStopped: BackgroundStop | undefined;
      /** Processes the command left running, by pid and command line (pipe-holders.ts `leftRunning`). */
      leftRunning: StoppedProcess[];
    }
  | {
      kind: "timed-out" | "cancelled";
      /** Processes outside the killed group that held its output and run on (`(setsid server &)`). */
      leftRunning: StoppedProcess[];
    }
  | { kind: "spawn-failed"; message: string };

/**
 * What was stopped when background processes held a command's output after it exited: the
 * processes of its group that held the output pipes (Linux, by `/proc`), or, where `/proc` does
 * not tell (`processes` absent), the command's whole process group.
 */
export interface BackgroundStop {
  processes?: StoppedProcess[];
}

/** What {@link CommandProcess} watches besides the child: the caller's signal and output listener. */
export interface WatchOptions {
  signal: AbortSignal;
  onOutput?: (output: string) => void;
  /** Called with the group's leader pid once its group ended or got its last SIGKILL. */
  onGroupEnded?: (pid: number) => void;
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
 * Watches one spawned command (the leader of its own process group) until it has exited and its
 * output is read, enforcing the timeout and the cancel signal by killing the whole process group
 * (SIGTERM, then SIGKILL).
 */
export class CommandProcess {
  private stopReason: "timed-out" | "cancelled" | undefined;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly decoders = {
    stdout: new StringDecoder("utf8"),
    stderr: new StringDecoder("utf8"),
  };
  private paused = false;
  /** What {@link abandonPipes} stopped of the background processes that held the output open. */
  private backgroundStopped: BackgroundStop | undefined;
  /** The command's ends of the output pipes ({@link outputEnds}), read at its start; empty off Linux. */
  private pipes = new Set<string>();
  /** Whether {@link abandonPipes} stopped reading pipes that stayed open after the command exited. */
  private abandoned = false;
  private lastPartialAt = 0;
  private partialTimer: NodeJS.Timeout | undefined;
  /** Whether the output was reported while the command ran, and has grown since. */
  private reported = false;
  private grownSinceReport = false;
  private settle: (outcome: ProcessOutcome) => void = () => {};
  private settled = false;

  constructor(
    private readonly child: ChildProcessByStdio<null, Readable, Readable>,
    private readonly output: CommandOutput,
    private readonly options: WatchOptions,
  ) {}

  /** Resolves once the command is over; never rejects. `timeoutMs` is in milliseconds. */
  wait(timeoutMs: number): Promise<ProcessOutcome> {
    return new Promise((resolve) => {
      this.settle = resolve;
      const { child, options } = this;
      this.pipes = outputEnds(child.pid);
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
      options.signal.addEventListener("abort", this.onAbort, { once: true });
      if (options.signal.aborted) {
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
   * Background children may hold the pipes open forever: once the command's own process has
   * exited, give the output a moment, then stop reading and end the group (the result says so:
   * README, "Commands the model runs"). Output we are holding back ourselves (paused) is waited for.
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
    this.grownSinceReport = true;
    this.reportPartial();
  }

  private reportPartial(): void {
    const report = this.options.onOutput;
    if (report === undefined || this.partialTimer !== undefined) {
      return;
    }
    const wait = this.lastPartialAt + PARTIAL_OUTPUT_INTERVAL_MS - Date.now();
    this.partialTimer = setTimeout(
      () => {
        this.partialTimer = undefined;
        this.lastPartialAt = Date.now();
        if (!this.settled) {
          this.reported = true;
          this.grownSinceReport = false;
          report(this.output.preview());
        }
      },
      Math.max(wait, 0),
    );
  }

  /**
   * Once the output has been reported while the command ran, what it printed since is reported
   * before the command's end: the last report holds every line (a face printing the output as it
   * comes loses none of the last ones), and the result comes after it.
   */
  private reportLast(): void {
    if (this.reported && this.grownSinceReport) {
      this.grownSinceReport = false;
      this.options.onOutput?.(this.output.preview());
    }
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

  /**
   * Stops reading pipes that stay open after the command exited, and stops the processes of its
   * group that hold them (SIGTERM, then SIGKILL): one started with its output sent elsewhere
   * (`nohup server > server.log 2>&1 &`) runs on, as README's "Commands the model runs" promises.
   * Where `/proc` cannot tell the holders, the whole group is stopped.
   */
  private abandonPipes(): void {
    const leader = this.child.pid;
    const holders = leader === undefined ? undefined : pipeHolders(leader, this.pipes);
    this.abandoned = true;
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    if (holders === undefined) {
      this.backgroundStopped = {};
      signalGroup(leader, "SIGTERM");
      setTimeout(() => signalGroup(leader, "SIGKILL"), KILL_ESCALATION_MS).unref();
    } else {
      this.backgroundStopped = { processes: holders };
      const pids = holders.map((holder) => holder.pid);
      signalEach(pids, "SIGTERM");
      setTimeout(() => signalEach(pids, "SIGKILL"), KILL_ESCALATION_MS).unref();
    }
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
    this.options.signal.removeEventListener("abort", this.onAbort);
    for (const decoder of [this.decoders.stdout, this.decoders.stderr]) {
      const rest = decoder.end();
      if (rest !== "") {
        this.output.append(Buffer.alloc(0), rest);
        this.grownSinceReport = true;
      }
    }
    this.reportLast();
    const pid = this.child.pid;
    if (this.stopReason !== undefined) {
      // Children that ignored SIGTERM may outlive the command: make sure the group ends.
      setTimeout(() => {
        signalGroup(pid, "SIGKILL");
        this.endGroup(pid);
      }, KILL_ESCALATION_MS).unref();
    } else {
      this.endGroup(pid);
    }
    this.settle(failure ?? this.outcomeAfterExit());
  }

  /** Takes a group that ended, or got its last SIGKILL, off the lists of live groups. */
  private endGroup(pid: number | undefined): void {
    if (pid !== undefined) {
      liveGroups.delete(pid);
      this.options.onGroupEnded?.(pid);
    }
  }

  private outcomeAfterExit(): ProcessOutcome {
    const leader = this.child.pid;
    // Those stopped above are not left running; pipes nobody held after the exit hold nobody.
    const stopped = new Set(this.backgroundStopped?.processes?.map((holder) => holder.pid));
    const pipes = this.abandoned ? this.pipes : new Set<string>();
    const signal = this.exitStatus?.signal ?? null;
    // A stopped command's group gets SIGKILL, as does a leader killed by SIGKILL
    // (killCommandProcessGroups): one of the group not yet ended is no process left running, but
    // one outside it that held the output runs on.
    const groupKilled = this.stopReason !== undefined || signal === "SIGKILL";
    const left = leader === undefined ? [] : leftRunning(leader, pipes, stopped, groupKilled);
    if (this.stopReason !== undefined) {
      return { kind: this.stopReason, leftRunning: left };
    }
    return {
      kind: "exited",
      code: this.exitStatus?.code ?? null,
      signal,
      backgroundStopped: this.backgroundStopped,
      leftRunning: left,
    };
  }
}

/** Sends `signal` to each of `pids`; one already gone (ESRCH) is fine. */
function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}
