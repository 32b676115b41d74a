import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The built CLI; `npm test` builds it first. */
export const CLI_PATH = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

const PACKAGE = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
) as { bin: { turnloop: string } };

/**
 * The package's `bin` (package.json's, `dist/cli/turnloop.cjs`): it answers `--version` itself and
 * imports {@link CLI_PATH} for every other command.
 */
export const BIN_PATH = fileURLToPath(new URL(`../../${PACKAGE.bin.turnloop}`, import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/cli/main.js ...args` (or `options.file`) as a real child process.
 * @param options.onStart gets the child, e.g. to send SIGINT.
 */
export function runCli(
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    onStart?: (child: ChildProcess) => void;
    /** Written to the child's stdin, which is then closed; absent: stdin is closed at once (empty). */
    stdin?: string | Buffer;
    /**
     * A bash command run first in the shell that then becomes turnloop (`bash -c 'PREFIX && exec
     * node …'`), e.g. `ulimit -f 3` to limit the size of the files it writes; absent: no shell.
     */
    prefix?: string;
    /** The file node runs; absent: {@link CLI_PATH}. */
    file?: string;
  },
): Promise<CliResult> {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing: run npm run build (npm test does it)`);
  }
  return new Promise((resolve, reject) => {
    const [command, commandArguments] = launch([options.file ?? CLI_PATH, ...args], options.prefix);
    const child = spawn(command, commandArguments, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    if (options.stdin === undefined) {
      // A closed pipe: stdin reads as empty at once, as /dev/null does.
      child.stdin.end();
    } else {
      child.stdin.end(options.stdin);
    }
    outputOf(child).then(resolve, reject);
    options.onStart?.(child);
  });
}

/**
 * An `onStart` for {@link runCli}: sends `signal` to a `-p --output-format stream-json` child once
 * its stdout shows the reply's first `assistant.message_delta` (the gate: the reply is streaming).
 */
export function signalAtFirstDelta(
  signal: NodeJS.Signals = "SIGTERM",
): (child: ChildProcess) => void {
  return (child) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes('"assistant.message_delta"') && !child.killed) {
        child.kill(signal);
      }
    });
  };
}

/**
 * What `child` writes to its piped stdout and stderr (as UTF-8; `""` for a stream not piped), and
 * how it ended, once it has exited and both streams are closed.
 * @throws (rejects) when the child cannot be spawned.
 */
export function outputOf(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The program and arguments that start `node fileAndArgs…`, behind `prefix` when there is one. */
function launch(fileAndArgs: readonly string[], prefix: string | undefined): [string, string[]] {
  if (prefix === undefined) {
    return [process.execPath, [...fileAndArgs]];
  }
  const quoted = [process.execPath, ...fileAndArgs].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`);
  return ["bash", ["-c", `${prefix} && exec ${quoted.join(" ")}`]];
}

/**
 * How long a turnloop child waits for its MCP servers before the first request (ms): a loaded
 * machine can take more than the default 5 s to start one, and the tool would then be missing
 * from the request. No child-process test is about that default.
 */
export const MCP_STARTUP_WAIT = { TURNLOOP_MCP_STARTUP_WAIT_MS: "60000" };

/**
 * An environment with nothing of the parent's model settings, the generous MCP start-up wait
 * ({@link MCP_STARTUP_WAIT}), plus `extra`.
 */
export function cleanEnvironment(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...MCP_STARTUP_WAIT,
  };
  return { ...environment, ...extra };
}

/**
 * Calls `then` once the file `path` exists (a marker a command writes: the order comes from what
 * the run did, not from a delay), checking every 20 ms; stops checking when `child` exits.
 */
export function whenFileExists(path: string, child: ChildProcess, then: () => void): void {
  const poll = setInterval(() => {
    if (existsSync(path)) {
      clearInterval(poll);
      then();
    }
  }, 20);
  child.once("exit", () => clearInterval(poll));
}
