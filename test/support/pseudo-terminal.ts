import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** A command run by `script` on a pseudo-terminal, and what it has shown so far. */
export interface PseudoTerminalRun {
  /** The `script` process: write keys to its stdin (`"n\r"`, Esc `"\x1b"`, Ctrl-D `"\x04"`). */
  child: ChildProcessWithoutNullStreams;
  /** Everything the command wrote to the terminal so far (its echo of typed keys included). */
  shown(): string;
  /** Resolves once the terminal has shown `text` (at once if it already has). */
  seen(text: string): Promise<void>;
  /** The command's exit code (`script -e` passes it on); `null` when a signal ended it. */
  exited: Promise<number | null>;
}

/**
 * Runs the shell `command` under `script -qfec`, which gives it a pseudo-terminal for stdin,
 * stdout and stderr (a redirection inside `command` can send one elsewhere), in `cwd` with `env`
 * and `TERM=xterm-256color`. The caller kills `child` when done if it may still wait for input.
 */
export function inPseudoTerminal(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): PseudoTerminalRun {
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env: { ...options.env, TERM: "xterm-256color" },
  });
  let shown = "";
  child.stdout.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  const seen = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (shown.includes(text)) {
          child.stdout.off("data", check);
          resolve();
        }
      };
      child.stdout.on("data", check);
      check();
    });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, shown: () => shown, seen, exited };
}
