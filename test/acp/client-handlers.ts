import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as acp from "@agentclientprotocol/sdk";

/** A request the test client received from the agent (besides `session/update`). */
export interface ClientCall {
  method: string;
  params: unknown;
}

/** How the test client answers `session/request_permission`; default: allow once. */
export type PermissionAnswerer = (
  params: acp.RequestPermissionRequest,
) => Promise<acp.RequestPermissionResponse>;

/** The client's side of the test: what it offers and how it answers. */
export interface ClientBehaviour {
  calls: ClientCall[];
  answerPermission: PermissionAnswerer;
  /** Content `fs/read_text_file` returns instead of the disk's, by path (an editor's unsaved buffer). */
  buffers: Map<string, string>;
  /** Paths whose `fs/read_text_file` the client answers with an error (a buffer it cannot read). */
  unreadable?: Set<string>;
  /**
   * The environment the client's terminals start from, before `terminal/create`'s `env` is laid
   * over it (an editor's own environment); default: the test process's.
   */
  terminalEnvironment?: NodeJS.ProcessEnv;
}

export function allowOnce(): PermissionAnswerer {
  return async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
}

/** Picks the option of `kind` the agent offered. */
export function choose(kind: acp.PermissionOptionKind): PermissionAnswerer {
  return async (params) => {
    const option = params.options.find((candidate) => candidate.kind === kind);
    if (option === undefined) {
      throw new Error(`no ${kind} option offered`);
    }
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  };
}

/**
 * An ACP client app like an editor's: records every request it gets, answers permissions as the
 * test says, implements `fs/*` over the real disk (with optional unsaved buffers) and `terminal/*`
 * with real child processes.
 */
export function testClientApp(behaviour: ClientBehaviour): acp.ClientApp {
  const terminals = new TerminalPool(() => behaviour.terminalEnvironment ?? process.env);
  const record = (method: string, params: unknown) => behaviour.calls.push({ method, params });
  const methods = acp.methods.client;
  return acp
    .client({ name: "turnloop-test-client" })
    .onNotification(methods.session.update, () => {})
    .onRequest(methods.session.requestPermission, ({ params }) => {
      record(methods.session.requestPermission, params);
      return behaviour.answerPermission(params);
    })
    .onRequest(methods.fs.readTextFile, async ({ params }) => {
      record(methods.fs.readTextFile, params);
      if (behaviour.unreadable?.has(params.path) === true) {
        throw new Error("cannot read this buffer");
      }
      const content = behaviour.buffers.get(params.path) ?? (await readFile(params.path, "utf8"));
      return { content: linesOf(content, params.line, params.limit) };
    })
    .onRequest(methods.fs.writeTextFile, async ({ params }) => {
      record(methods.fs.writeTextFile, params);
      await mkdir(dirname(params.path), { recursive: true });
      await writeFile(params.path, params.content);
      return {};
    })
    .onRequest(methods.terminal.create, ({ params }) => {
      record(methods.terminal.create, params);
      return { terminalId: terminals.create(params) };
    })
    .onRequest(methods.terminal.output, ({ params }) => {
      record(methods.terminal.output, params);
      return terminals.output(params.terminalId);
    })
    .onRequest(methods.terminal.waitForExit, ({ params }) => {
      record(methods.terminal.waitForExit, params);
      return terminals.waitForExit(params.terminalId);
    })
    .onRequest(methods.terminal.kill, ({ params }) => {
      record(methods.terminal.kill, params);
      terminals.kill(params.terminalId);
      return {};
    })
    .onRequest(methods.terminal.release, ({ params }) => {
      record(methods.terminal.release, params);
      terminals.kill(params.terminalId);
      terminals.release(params.terminalId);
      return {};
    });
}

/**
 * `content`'s lines from `line` (1-based) on, at most `limit` of them, each with its line break,
 * as an editor answers `fs/read_text_file` with `line` and `limit`; all of it without them.
 */
function linesOf(content: string, line?: number | null, limit?: number | null): string {
  if (line == null && limit == null) {
    return content;
  }
  const start = (line ?? 1) - 1;
  const lines = content.split(/(?<=\n)/);
  return lines.slice(start, limit == null ? undefined : start + limit).join("");
}

interface TerminalProcess {
  child: ChildProcess;
  output: string;
  /** Whether the start of the output was dropped to stay within `outputByteLimit`. */
  truncated: boolean;
  exit: Promise<acp.TerminalExitStatus>;
  status?: acp.TerminalExitStatus;
}

/** Real processes behind `terminal/*`, as an editor's terminals would be. */
class TerminalPool {
  private readonly terminals = new Map<string, TerminalProcess>();
  private next = 1;

  /** `startingEnvironment`: what a terminal's environment is before the request's `env`. */
  constructor(private readonly startingEnvironment: () => NodeJS.ProcessEnv) {}

  create(params: acp.CreateTerminalRequest): string {
    const id = `term-${this.next++}`;
    const env = { ...this.startingEnvironment() };
    for (const variable of params.env ?? []) {
      env[variable.name] = variable.value;
    }
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? process.cwd(),
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const terminal: TerminalProcess = {
      child,
      output: "",
      truncated: false,
      exit: new Promise((resolve) => {
        child.on("close", (exitCode, signal) => {
          terminal.status = { exitCode, signal };
          resolve({ exitCode, signal });
        });
      }),
    };
    // ACP v1 terminals: past `outputByteLimit`, the client drops output from the beginning.
    const limit = params.outputByteLimit ?? Number.POSITIVE_INFINITY;
    const append = (chunk: Buffer) => {
      terminal.output += chunk.toString("utf8");
      const bytes = Buffer.from(terminal.output);
      if (bytes.length > limit) {
        terminal.output = bytes
          .subarray(bytes.length - limit)
          .toString("utf8")
          .replace(/^\uFFFD+/, "");
        terminal.truncated = true;
      }
    };
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    this.terminals.set(id, terminal);
    return id;
  }

  output(id: string): acp.TerminalOutputResponse {
    const terminal = this.get(id);
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.status === undefined ? {} : { exitStatus: terminal.status }),
    };
  }

  async waitForExit(id: string): Promise<acp.WaitForTerminalExitResponse> {
    return this.get(id).exit;
  }

  kill(id: string): void {
    const terminal = this.terminals.get(id);
    if (terminal?.status === undefined && terminal?.child.pid !== undefined) {
      try {
        process.kill(-terminal.child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }

  release(id: string): void {
    this.terminals.delete(id);
  }

  private get(id: string): TerminalProcess {
    const terminal = this.terminals.get(id);
    if (terminal === undefined) {
      throw acp.RequestError.resourceNotFound(id);
    }
    return terminal;
  }
}
