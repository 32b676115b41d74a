import type * as acp from "@agentclientprotocol/sdk";
import { errorMessage } from "../events/errors.js";
import { NO_TERMINAL_DEFAULTS } from "../session/command-environment.js";
import { CommandOutput } from "../tools/command-output.js";
import type { CommandRequest, CommandResult, CommandRunner } from "../tools/command-runner.js";
import { MAX_OUTPUT_CHARACTERS } from "../tools/process-runner.js";
import type { AcpClientAccess } from "./client-capabilities.js";

/** Bytes of command output the client keeps (the tail); the result is bounded further. */
const TERMINAL_OUTPUT_BYTE_LIMIT = 1_000_000;
/** After a kill, how long the client may take to report the output and release, in ms. */
const CLIENT_DEADLINE_MS = 2_000;
/** Put before the output when the client's terminal kept only its end. */
const DROPPED_NOTE =
  "[The terminal kept only the end of the output; earlier output was dropped.]\n";

/** What the terminal runner needs besides the client: where to show a call's terminal. */
export interface TerminalAccess extends AcpClientAccess {
  /** Called once a tool call's command runs in a client terminal, before waiting for it. */
  onTerminal: (toolCallId: string, terminalId: string) => void;
}

/**
 * What `terminal/create` lays over the client's environment: pagers off, and the editor defaults
 * of a local command ({@link NO_TERMINAL_DEFAULTS}: an editor that fails at once, no credential
 * prompt), since nobody types into the terminal while the command waits.
 */
const TERMINAL_DEFAULTS: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  ...NO_TERMINAL_DEFAULTS,
};

/** The variables naming the editor a program opens (git's, then everyone's). */
const EDITOR_VARIABLES = ["GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "VISUAL", "EDITOR"];

/** Carries the failing editor to {@link editorFallback}'s script, which unsets it. */
const NO_EDITOR_VARIABLE = "TURNLOOP_NO_EDITOR";

/**
 * A `bash -c` script that gives each of `names` the failing editor only when the terminal's own
 * environment does not set it (an editor that sets `GIT_EDITOR` in its terminals keeps its
 * choice), then runs the command (its `$1`) as `bash -c` would have: ACP's `terminal/create`
 * `env` can only set a variable, and the agent cannot know the client's environment.
 */
function editorFallback(names: readonly string[]): string {
  return `for name in ${names.join(" ")}; do [ -v "$name" ] || export "$name=$${NO_EDITOR_VARIABLE}"; done; unset ${NO_EDITOR_VARIABLE}; exec bash -c "$1"`;
}

/**
 * The {@link CommandRunner} over the ACP client's terminals, for a client that offered
 * `terminal: true` in `initialize` (ACP v1 `terminal/*`); `undefined` otherwise. The command runs
 * as `bash -c` in the client's own environment with {@link TERMINAL_DEFAULTS} set through
 * `terminal/create`'s `env`, each with the value the request's environment holds for it (the
 * user's own when turnloop's environment set it, as for a local command: command-environment.ts);
 * an editor variable turnloop's environment does not set is left to the terminal's own
 * environment, and gets the failing editor only where that does not set it ({@link editorFallback}).
 * The rest of the request's environment stays on this side, since the client owns the terminal's.
 */
export function clientTerminalRunner(access: TerminalAccess): CommandRunner | undefined {
  return access.offered?.terminal === true ? new ClientTerminalRunner(access) : undefined;
}

/**
 * `terminal/create` → race(`wait_for_exit`, timeout, cancel) → `kill` when it did not exit →
 * `output` → always `release`. The output is cut like a local run's (head and tail, the whole
 * saved to `request.savePath`), after a note when the terminal itself dropped output.
 */
class ClientTerminalRunner implements CommandRunner {
  readonly description = "client terminal";
  readonly stopDescription = "the client stopped it";

  constructor(private readonly access: TerminalAccess) {}

  async run(command: string, request: CommandRequest): Promise<CommandResult> {
    let terminal: acp.TerminalHandle;
    try {
      terminal = await this.create(command, request);
    } catch (error) {
      const output = { exitCode: null, signal: null, output: "", truncated: false };
      return request.signal.aborted
        ? { ...output, stopped: "cancelled" }
        : { ...output, startError: `Could not start the command: ${errorMessage(error)}` };
    }
    try {
      if (request.toolCallId !== undefined) {
        this.access.onTerminal(request.toolCallId, terminal.id);
      }
      const ending = await waitForEnding(terminal, request.timeoutMs, request.signal);
      if (ending.kind !== "exited") {
        await withDeadline(terminal.kill(), undefined);
      }
      const reported = await withDeadline(terminal.currentOutput(), undefined);
      return await resultOf(ending, reported, request);
    } finally {
      await withDeadline(terminal.release(), undefined);
    }
  }

  private create(command: string, request: CommandRequest): Promise<acp.TerminalHandle> {
    // The editor variables turnloop's environment does not set (the request's holds our failing
    // default for them: command-environment.ts) are the terminal's own to give.
    const unset = EDITOR_VARIABLES.filter(
      (name) => request.env[name] === undefined || request.env[name] === NO_TERMINAL_DEFAULTS[name],
    );
    const env = Object.entries(TERMINAL_DEFAULTS)
      .filter(([name]) => !unset.includes(name))
      .map(([name, value]) => ({ name, value: request.env[name] ?? value }));
    if (unset.length > 0) {
      env.push({ name: NO_EDITOR_VARIABLE, value: NO_TERMINAL_DEFAULTS.EDITOR ?? "false" });
    }
    return this.access.client.createTerminal(
      {
        sessionId: this.access.sessionId,
        command: "bash",
        args: unset.length === 0 ? ["-c", command] : ["-c", editorFallback(unset), "bash", command],
        cwd: request.cwd,
        env,
        outputByteLimit: TERMINAL_OUTPUT_BYTE_LIMIT,
      },
      { cancellationSignal: request.signal, stopWaitingOnCancel: true },
    );
  }
}

async function resultOf(
  ending: Ending,
  reported: acp.TerminalOutputResponse | undefined,
  request: CommandRequest,
): Promise<CommandResult> {
  const text = reported?.output ?? "";
  const output = new CommandOutput(MAX_OUTPUT_CHARACTERS, request.savePath, request.secrets);
  output.append(Buffer.from(text), text);
  const shown = await output.finish();
  const dropped = reported?.truncated === true;
  const result = {
    output: `${dropped ? DROPPED_NOTE : ""}${shown}`,
    truncated: dropped || output.cut,
  };
  switch (ending.kind) {
    case "timed-out":
      return { ...result, exitCode: null, signal: null, stopped: "timeout" };
    case "cancelled":
      return { ...result, exitCode: null, signal: null, stopped: "cancelled" };
    case "exited":
      return {
        ...result,
        exitCode: ending.status.exitCode ?? null,
        signal: ending.status.signal ?? null,
      };
    case "lost": {
      const status = reported?.exitStatus;
      return { ...result, exitCode: status?.exitCode ?? null, signal: status?.signal ?? "SIGKILL" };
    }
  }
}

type Ending =
  | { kind: "exited"; status: acp.WaitForTerminalExitResponse }
  | { kind: "timed-out" }
  | { kind: "cancelled" }
  /** The client could not wait (e.g. the terminal vanished). */
  | { kind: "lost" };

function waitForEnding(
  terminal: acp.TerminalHandle,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Ending> {
  return new Promise((resolve) => {
    const finish = (ending: Ending) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(ending);
    };
    const onAbort = () => finish({ kind: "cancelled" });
    const timer = setTimeout(() => finish({ kind: "timed-out" }), timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) {
      onAbort();
    }
    terminal.waitForExit().then(
      (status) => finish({ kind: "exited", status }),
      // The command is then killed and whatever output there is gets reported.
      () => finish({ kind: "lost" }),
    );
  });
}

/** `promise`'s value, or `fallback` when it fails or the client takes too long (cancel must be quick). */
function withDeadline<T, F>(promise: Promise<T>, fallback: F): Promise<T | F> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), CLIENT_DEADLINE_MS);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}
