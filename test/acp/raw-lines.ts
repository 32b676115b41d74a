import { spawn } from "node:child_process";
import { expect, onTestFinished } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import type { ChildFixture } from "./child-process.js";

/** A JSON-RPC message as read off `turnloop acp`'s stdout. */
export type LineMessage = Record<string, unknown> & { id?: unknown; method?: unknown };

/**
 * `node dist/cli/main.js acp` with pipes, spoken to in raw lines, so a test can send what a
 * client library never would (a line over the limit, a whole input in one write then its end).
 * Every stdout line must be one JSON message; `stderr` is kept whole.
 */
export class RawAcpAgent {
  readonly messages: LineMessage[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;
  /** How the process ended: its exit code, or the signal that ended it. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child;
  private buffered = "";
  private readonly waiters = new Set<() => void>();

  constructor(env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn(process.execPath, [CLI_PATH, "acp"], { cwd, env });
    onTestFinished(() => this.kill());
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
    this.ended = new Promise((resolve) =>
      this.child.on("close", (code, signal) => resolve({ code, signal })),
    );
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffered += chunk;
      for (let newline = this.buffered.indexOf("\n"); newline !== -1; ) {
        this.messages.push(JSON.parse(this.buffered.slice(0, newline)) as LineMessage);
        this.buffered = this.buffered.slice(newline + 1);
        newline = this.buffered.indexOf("\n");
      }
      for (const waiter of this.waiters) {
        waiter();
      }
    });
  }

  /** Writes `text` as is. */
  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Writes `text`, then ends stdin: the whole input in one write, then its end. */
  writeAndEnd(text: string): Promise<number | null> {
    this.child.stdin.end(text);
    return this.exited;
  }

  /** Sends one request line and resolves with its answer (gated on stdout, not on time). */
  async request(id: string | number, method: string, params: unknown): Promise<LineMessage> {
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return this.answer(id);
  }

  /** Resolves with the answer to request `id`, once stdout holds it. */
  answer(id: unknown): Promise<LineMessage> {
    return this.message((message) => message.method === undefined && message.id === id);
  }

  /** Resolves with the first stdout message `matches` accepts, once stdout holds it. */
  message(matches: (message: LineMessage) => boolean): Promise<LineMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(matches);
        if (found !== undefined) {
          this.waiters.delete(check);
          this.child.off("close", gone);
          resolve(found);
        }
      };
      const gone = () => reject(new Error(`exited first; stderr: ${this.stderr}`));
      this.child.once("close", gone);
      this.waiters.add(check);
      check();
    });
  }

  /** The answers (messages without a method) on stdout so far, in order. */
  answers(): LineMessage[] {
    return this.messages.filter((message) => message.method === undefined);
  }

  /** Kills the agent if it still runs (a test that failed before its end). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGKILL");
    }
  }

  /** Ends stdin without waiting for the exit. */
  endInput(): void {
    this.child.stdin.end();
  }

  /** Sends `signal` to the agent's process. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends stdin and resolves with the exit code. */
  end(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** One JSON-RPC request as the line a client writes (`{"jsonrpc":"2.0",id,method,params}\n`). */
export function requestLine(id: number, method: string, params: unknown): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
}

/** ACP prompt content of one text block. */
export const textPrompt = (value: string) => [{ type: "text", text: value }];

/** A raw agent in `fixture`'s cwd, its `initialize` (id 1) answered. */
export async function initializedAgent(fixture: ChildFixture): Promise<RawAcpAgent> {
  const agent = new RawAcpAgent(fixture.environment(), fixture.cwd);
  await agent.request(1, "initialize", { protocolVersion: 1 });
  return agent;
}

/**
 * A session of `fixture`'s cwd with one prompt answered "one" (ids 2, 3), made by an agent that
 * has then exited 0 (asserted). @returns its session id.
 */
export async function storedSession(fixture: ChildFixture): Promise<string> {
  const agent = await initializedAgent(fixture);
  const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
  const { sessionId } = created.result as { sessionId: string };
  fixture.server.enqueue({ text: "one" });
  const answer = await agent.request(3, "session/prompt", {
    sessionId,
    prompt: textPrompt("first"),
  });
  expect(answer.result).toEqual({ stopReason: "end_turn" });
  expect(await agent.end()).toBe(0);
  return sessionId;
}
