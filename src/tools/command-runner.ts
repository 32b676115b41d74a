/**
 * The CommandRunner port: how every command the agent or the user runs is started, watched and
 * stopped (DESIGN.md, "Ports"). The `bash` tool, the interactive `!command` and the ACP client's
 * terminal all sit behind this one shape; a sandbox (bubblewrap) is another implementation.
 *
 * A runner owns the process group, the timeout, cancellation and output capping: a caller gets one
 * {@link CommandResult} whatever happened, and never a rejection.
 */

import type { SecretValue } from "../events/secrets.js";
import type { BackgroundStop } from "./command-process.js";
import type { StoppedProcess } from "./pipe-holders.js";

/** What a runner needs to run one command. */
export interface CommandRequest {
  /** Absolute folder the command starts in. */
  cwd: string;
  /**
   * The command's whole environment, handed down by the session host (provider keys already
   * removed); a runner adds nothing from its own process.
   */
  env: Readonly<Record<string, string>>;
  /** Aborting it stops the command (its whole process group) and resolves the run. */
  signal: AbortSignal;
  /** Milliseconds before the runner stops the command and reports `stopped: "timeout"`. */
  timeoutMs: number;
  /**
   * Called with the output shown so far (the same head-and-tail cut as the result, the line
   * between them saying how many line breaks were cut: command-output.ts `previewCut`), at most
   * every 100 ms while the command runs; once it has been called, called again as the command
   * ends with what it printed since, before the result. A runner may never call it (the ACP
   * client's terminal shows the output itself).
   */
  onOutput?: (output: string) => void;
  /**
   * File that receives the full output (secrets redacted, mode 0600) once it is longer than the
   * shown limit; its folder is created when needed.
   */
  savePath: string;
  /** Values replaced by `[redacted:NAME]` in the saved file (the session host's secrets). */
  secrets: readonly SecretValue[];
  /**
   * The tool call the command runs for, when it runs for one: a runner that shows the command to
   * the user (the ACP client's terminal, embedded in that call's updates) names it.
   */
  toolCallId?: string;
}

/** How one command ended. Exactly one of `exitCode`, `signal`, `stopped`, `startError` explains it. */
export interface CommandResult {
  /** The exit code, or `null` when the command ended by a signal, was stopped or never started. */
  exitCode: number | null;
  /** The signal that ended the command (e.g. `SIGKILL`), or `null`. */
  signal: string | null;
  /**
   * stdout and stderr interleaved as they came; past the limit only its head and tail, with a
   * marker naming the omitted size and {@link CommandRequest.savePath}.
   */
  output: string;
  /** Whether `output` is cut (or the runner itself dropped output, e.g. a client terminal). */
  truncated: boolean;
  /** Set when the runner stopped the command: its timeout, or the caller's signal. */
  stopped?: "timeout" | "cancelled";
  /**
   * Set when the command could not be started: one sentence saying why, for the model and the
   * user (e.g. `Could not start bash: spawn bash ENOENT`, `Working directory /x does not exist.`).
   */
  startError?: string;
  /**
   * Set by a sandboxed runner when the command failed on the sandbox's limits (a write outside
   * the writable places, the network): why, in words for the user and the model, e.g.
   * `it has no network (Could not resolve host)`.
   */
  sandboxLimit?: string;
  /**
   * Set by a runner when the command's effects differ from what its text suggests: one or two
   * sentences for the model, said after the exit line (a sandboxed command's private `/tmp`).
   */
  note?: string;
  /**
   * Set when background processes the command started (`server &`) still held its output open
   * after it exited: those of its process group that held it were stopped, or the whole group
   * where they could not be told (tools/command-process.ts).
   */
  backgroundStopped?: BackgroundStop;
  /**
   * Set by a sandboxed runner when the command left processes running (`(server &)`, `nohup
   * server &`, a daemon): how many, all ended with it, since a sandboxed command's processes end
   * with it (tools/sandbox/left-running.ts).
   */
  sandboxStopped?: number;
  /**
   * Set when the command left processes running after it exited (by pid and command line:
   * tools/pipe-holders.ts `leftRunning`): they outlive the session; a sandboxed runner's end with
   * it instead.
   */
  leftRunning?: StoppedProcess[];
}

/** Runs shell commands. Implementations: plain `bash -c`, the ACP client's terminal, bubblewrap. */
export interface CommandRunner {
  /** A few words for messages and `turnloop config`, e.g. `bash`, `client terminal`. */
  readonly description: string;
  /**
   * How a stop is carried out, as the end of a sentence for the model: `its process group was
   * killed`, `the client stopped it`.
   */
  readonly stopDescription: string;
  /** Runs `command` with `bash -c` semantics. Resolves once it is over; never rejects. */
  run(command: string, request: CommandRequest): Promise<CommandResult>;
}

/** How a session's commands run: the runner and the environment a command gets. */
export interface CommandSetup {
  runner: CommandRunner;
  /** See {@link CommandRequest.env}. */
  env: Readonly<Record<string, string>>;
  /**
   * Set when {@link runner} is a sandbox: how a command that failed on its limits
   * ({@link CommandResult.sandboxLimit}) may run again outside it, once `ask` resolved `allowed`
   * (the user agreed to exactly that command, with the reason shown); else `reason` says why not
   * (the user said no, or nobody could be asked and what would allow it), for the model.
   */
  outside?: {
    runner: CommandRunner;
    ask(request: {
      toolCallId: string;
      command: string;
      reason: string;
      signal: AbortSignal;
    }): Promise<{ allowed: true } | { allowed: false; reason: string }>;
  };
}
