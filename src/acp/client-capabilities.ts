import * as acp from "@agentclientprotocol/sdk";
import type { ClientCapabilities } from "../tools/define-tool.js";

/** Bytes of command output the client keeps (the tail); the bash tool bounds it further. */
const TERMINAL_OUTPUT_BYTE_LIMIT = 1_000_000;
/** After a kill, how long the client may take to report the output and release, in ms. */
const CLIENT_DEADLINE_MS = 2_000;

/** What the tools' client access needs from the ACP connection and the session. */
export interface AcpClientAccess {
  client: acp.AgentContext;
  sessionId: string;
  /** What the client offered in `initialize`. */
  offered: acp.ClientCapabilities | undefined;
  /** Called once a call's command runs in a client terminal, before waiting for it. */
  onTerminal: (toolCallId: string, terminalId: string) => void;
}

/**
 * The tools' {@link ClientCapabilities} over ACP v1 client methods, with only what the client
 * offered in `initialize` (ACP v1 initialization: omitted capabilities are unsupported):
 * `fs/read_text_file`, `fs/write_text_file` (so edits land in the editor's buffers), and
 * `terminal/*` for commands. `undefined` when the client offered nothing.
 */
export function acpClientCapabilities(access: AcpClientAccess): ClientCapabilities | undefined {
  const { client, sessionId, offered } = access;
  const capabilities: ClientCapabilities = {};
  if (offered?.fs?.readTextFile === true) {
    capabilities.readTextFile = async (path, signal) => {
      const response = await client.request(
        acp.methods.client.fs.readTextFile,
        { sessionId, path },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      return response.content;
    };
  }
  if (offered?.fs?.writeTextFile === true) {
    capabilities.writeTextFile = async (path, content, signal) => {
      await client.request(
        acp.methods.client.fs.writeTextFile,
        { sessionId, path, content },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    };
  }
  if (offered?.terminal === true) {
    capabilities.runCommand = (command, options) => runInTerminal(access, command, options);
  }
  return Object.keys(capabilities).length === 0 ? undefined : capabilities;
}

type CommandOptions = Parameters<NonNullable<ClientCapabilities["runCommand"]>>[1];
type CommandResult = Awaited<ReturnType<NonNullable<ClientCapabilities["runCommand"]>>>;

/**
 * ACP v1 terminals: `terminal/create` → race(`wait_for_exit`, timeout, cancel) → `kill` when it
 * did not exit → `output` → always `release`.
 */
async function runInTerminal(
  access: AcpClientAccess,
  command: string,
  options: CommandOptions,
): Promise<CommandResult> {
  const terminal = await access.client.createTerminal(
    {
      sessionId: access.sessionId,
      command: "bash",
      args: ["-c", command],
      cwd: options.cwd,
      env: [
        { name: "PAGER", value: "cat" },
        { name: "GIT_PAGER", value: "cat" },
      ],
      outputByteLimit: TERMINAL_OUTPUT_BYTE_LIMIT,
    },
    { cancellationSignal: options.signal, stopWaitingOnCancel: true },
  );
  try {
    access.onTerminal(options.toolCallId, terminal.id);
    const ending = await waitForEnding(terminal, options.timeoutMs, options.signal);
    if (ending.kind !== "exited") {
      await withDeadline(terminal.kill(), undefined);
    }
    const output = await withDeadline(terminal.currentOutput(), undefined);
    const status = ending.kind === "exited" ? ending.status : output?.exitStatus;
    return {
      output: output?.output ?? "",
      exitCode: status?.exitCode ?? null,
      signal: status?.signal ?? (ending.kind === "exited" ? null : "SIGKILL"),
      truncated: output?.truncated ?? false,
    };
  } finally {
    await withDeadline(terminal.release(), undefined);
  }
}

type Ending =
  | { kind: "exited"; status: acp.WaitForTerminalExitResponse }
  | { kind: "timed-out" }
  | { kind: "cancelled" };

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
      // The client could not wait (e.g. the terminal vanished): treat it like a timeout, so
      // the command is killed and whatever output there is gets reported.
      () => finish({ kind: "timed-out" }),
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
