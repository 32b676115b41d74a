/**
 * The signals that stop a face from outside: a supervisor's stop (SIGTERM, as `timeout`, systemd
 * and editors send) and a closed terminal (SIGHUP). SIGINT is not among them: each face gives
 * Ctrl-C a meaning of its own. Node's default for both is to exit at once, which would leave a
 * command the model started running and its session's log without an end.
 */
export const TERMINATION_SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** One of {@link TERMINATION_SIGNALS}. */
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number];

const SIGNAL_NUMBERS: Record<TerminationSignal | "SIGINT", number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
};

/**
 * The exit code of a process that ended because of `signal`, as POSIX shells report one that a
 * signal killed: 128 + the signal's number (SIGHUP 129, SIGINT 130, SIGTERM 143).
 */
export function signalExitCode(signal: TerminationSignal | "SIGINT"): number {
  return 128 + SIGNAL_NUMBERS[signal];
}

/**
 * Calls `handler` with each of {@link TERMINATION_SIGNALS} the process receives, instead of
 * Node's default (exit at once). @returns a function that removes the listeners.
 */
export function onTerminationSignal(handler: (signal: TerminationSignal) => void): () => void {
  const listeners = TERMINATION_SIGNALS.map((signal) => {
    const listener = () => handler(signal);
    process.on(signal, listener);
    return () => process.off(signal, listener);
  });
  return () => {
    for (const remove of listeners) {
      remove();
    }
  };
}
