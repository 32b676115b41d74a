/**
 * MCP's stdio transport (newline-delimited JSON-RPC on the child's stdin/stdout) with the server
 * in its own process group. The SDK's `StdioClientTransport` signals only the child it spawned,
 * so a server started through `npx`, `uvx` or a shell script leaves its real process behind;
 * here close ends stdin, then signals the whole group (SIGTERM, then SIGKILL), and every group
 * still alive when turnloop exits is killed, so no server outlives turnloop. Framing is the SDK's
 * (`serializeMessage`, `deserializeMessage`) with a reader that fails the call a message over
 * the size limit answers at once (line-reader.ts).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import {
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/client/stdio";
import { errorCode } from "../../events/errors.js";
import { type FirstOutput, notAnMcpServer } from "./first-output.js";
import { JsonLineReader, MAX_MESSAGE_BYTES } from "./line-reader.js";

/** How long a server may take to exit after its stdin closes, then after SIGTERM (ms). */
const EXIT_GRACE_MS = 500;
/** JSON-RPC's "internal error" code. */
const INTERNAL_ERROR = -32603;
/** Bytes of the server's stderr kept for error reports. */
const STDERR_TAIL_BYTES = 4096;

/** Process groups of running servers, killed when turnloop exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function installExitHook(): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const pid of liveGroups) {
        killGroup(pid, "SIGKILL");
      }
    });
  }
}

/**
 * Node's spawn failure in words (README "MCP servers": "a command not found"): `spawn
 * no-such-program ENOENT` is `command not found: no-such-program`, or `folder not found: <cwd>`
 * when the missing file is the server's `cwd`; `EACCES` is `command not runnable (permission
 * denied): <command>`. Any other error is returned as it is.
 */
function spawnFailure(error: Error, parameters: StdioServerParameters): Error {
  switch (errorCode(error)) {
    case "ENOENT":
      return new Error(
        existsSync(parameters.cwd)
          ? `command not found: ${parameters.command}`
          : `folder not found: ${parameters.cwd} (the server's cwd)`,
        { cause: error },
      );
    case "EACCES":
      return new Error(`command not runnable (permission denied): ${parameters.command}`, {
        cause: error,
      });
    default:
      return error;
  }
}

/** What starts a stdio server. */
export interface StdioServerParameters {
  command: string;
  args: readonly string[];
  /** The whole environment of the child. */
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly reader = new JsonLineReader();
  private stderrTail = "";
  private first: FirstOutput | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** How the process ended (`exited with exit code 3`, `was killed by SIGKILL`), once it has. */
  private ending: string | undefined;

  constructor(private readonly parameters: StdioServerParameters) {}

  /** The last few KiB the server wrote to stderr (for error reports). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** How the server's process ended (`exited with exit code 3`, `was killed by SIGTERM`); undefined while it runs. */
  get exit(): string | undefined {
    return this.ending;
  }

  /**
   * Why this server, whose `initialize` failed with `failure`, is no MCP server, from what it
   * printed first on stdout (first-output.ts); `undefined` when that does not show it.
   */
  notAnMcpServer(failure: string): string | undefined {
    return notAnMcpServer(failure, this.first);
  }

  /** The server's pid (and process group id) once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    installExitHook();
    return new Promise((resolve, reject) => {
      const child = spawn(this.parameters.command, [...this.parameters.args], {
        cwd: this.parameters.cwd,
        env: this.parameters.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      this.exited = new Promise((settle) => child.once("close", () => settle()));
      child.once("error", (error) => {
        const said = spawnFailure(error, this.parameters);
        reject(said);
        this.onerror?.(said);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) {
          liveGroups.add(child.pid);
        }
        resolve();
      });
      child.once("close", (code, signal) => {
        this.ending =
          signal === null ? `exited with exit code ${code ?? 0}` : `was killed by ${signal}`;
        if (child.pid !== undefined) {
          liveGroups.delete(child.pid);
        }
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (stdin === undefined || stdin === null || stdin.destroyed) {
        reject(new Error("the MCP server is not running"));
        return;
      }
      if (stdin.write(serializeMessage(message))) {
        resolve();
      } else {
        stdin.once("drain", () => resolve());
      }
    });
  }

  /** Ends stdin, then signals the process group until it is gone. Resolves once it exited. */
  async close(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) {
      return;
    }
    child.stdin?.end();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await this.exitsWithin(EXIT_GRACE_MS)) {
        break;
      }
      killGroup(pid, signal);
    }
    // The group may hold children that outlive the leader: make sure they get the signal too.
    killGroup(pid, "SIGKILL");
    liveGroups.delete(pid);
    await this.exitsWithin(EXIT_GRACE_MS);
  }

  private exitsWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref();
      this.exited.then(
        () => {
          clearTimeout(timer);
          resolve(true);
        },
        () => resolve(true),
      );
    });
  }

  private receive(chunk: Buffer): void {
    for (const line of this.reader.push(chunk)) {
      switch (line.kind) {
        case "message":
          this.first ??= { kind: "message", message: line.message };
          this.onmessage?.(line.message);
          break;
        case "invalid":
          this.first ??= { kind: "text", text: line.text };
          this.onerror?.(line.error);
          break;
        case "too_large": {
          const message = `the MCP server's answer is ${line.bytes} bytes, over turnloop's limit of ${MAX_MESSAGE_BYTES} bytes for one message; it was not read. Ask the tool for less (a range, a page, a filter).`;
          if (line.id === undefined) {
            this.onerror?.(new Error(message));
          } else {
            // The pending call fails now rather than at its timeout: an error answer to its id.
            this.onmessage?.({
              jsonrpc: "2.0",
              id: line.id,
              error: { code: INTERNAL_ERROR, message },
            });
          }
          break;
        }
        default: {
          const unhandled: never = line;
          void unhandled;
        }
      }
    }
  }
}

/**
 * What a stdio server inherits of turnloop's environment: only the variables the MCP SDK deems
 * safe (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`), so API keys stay with turnloop; a
 * server's own `env` adds what it needs.
 */
export function inheritedEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const name of DEFAULT_INHERITED_ENV_VARS) {
    const value = env[name];
    if (value !== undefined && !value.startsWith("()")) {
      inherited[name] = value;
    }
  }
  return inherited;
}
