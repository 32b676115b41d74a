import type { Session } from "../session/session.js";
import {
  onTerminationSignal,
  signalExitCode,
  type TerminationSignal,
} from "../session/termination-signals.js";
import { killCommandProcessGroups } from "../tools/command-process.js";

/** The streams a stopped `-p` writes to. */
interface StopStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** What {@link watchPromptStops} gives `-p`: the exit code of a cancelled prompt, and its end. */
export interface PromptStops {
  /** 130 after Ctrl-C or a closed stream; 128 + the number of SIGTERM (143) or SIGHUP (129). */
  cancelledExitCode(): number;
  /** Removes every listener. */
  dispose(): void;
}

/**
 * How `-p` is stopped from outside while `session` answers its prompt:
 * - Ctrl-C (SIGINT), SIGTERM or SIGHUP cancels the prompt: its commands get SIGTERM, then SIGKILL
 *   (tools/command-process.ts), the log gets its end, the summary and session id are printed;
 * - a second of them exits at once (SIGKILLing the commands' process groups first), saying how to
 *   resume, with the cancelled exit code;
 * - a closed stdout or stderr (`turnloop -p … | head`: a write fails with EPIPE) cancels too;
 * - a write to a terminal that is gone (EIO) is a SIGHUP, unless a stop came first.
 */
export function watchPromptStops(
  session: Session,
  streams: StopStreams,
  exitCancelled: number,
): PromptStops {
  let stoppedBy: TerminationSignal | "SIGINT" | undefined;
  const exitCode = () => (stoppedBy === undefined ? exitCancelled : signalExitCode(stoppedBy));
  const onStop = (signal: TerminationSignal | "SIGINT") => {
    if (stoppedBy !== undefined) {
      // Exiting now skips the tools' SIGTERM-then-SIGKILL: end their process groups first.
      killCommandProcessGroups();
      const second = signal === "SIGINT" ? "Ctrl-C" : signal;
      streams.stderr.write(
        `\nturnloop: stopped at once by a second ${second}; resume with --resume ${session.id}\n`,
      );
      process.exit(exitCode());
    }
    stoppedBy = signal;
    // Ctrl-C is the user's; a signal from elsewhere (a supervisor, a closed terminal) is named.
    session.cancel(signal === "SIGINT" ? undefined : signal);
  };
  const onInterrupt = () => onStop("SIGINT");
  const onOutputError = (error: NodeJS.ErrnoException) => {
    // Either stream may be the closed one (`2>&1 | head` closes both).
    if (error.code === "EPIPE") {
      session.cancel("a closed output (EPIPE)");
    } else if (error.code === "EIO" && stoppedBy === undefined) {
      // A write to a terminal that is gone (its window closed): what SIGHUP says, said once.
      onStop("SIGHUP");
    }
  };
  process.on("SIGINT", onInterrupt);
  const stopListening = onTerminationSignal(onStop);
  streams.stdout.on("error", onOutputError);
  streams.stderr.on("error", onOutputError);
  return {
    cancelledExitCode: exitCode,
    dispose() {
      process.off("SIGINT", onInterrupt);
      stopListening();
      streams.stdout.off("error", onOutputError);
      streams.stderr.off("error", onOutputError);
    },
  };
}
