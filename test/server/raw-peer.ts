import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { CLI_PATH } from "../support/cli.js";

/** A JSON-RPC message as read off the wire. */
export interface Message {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * Speaks `Content-Length` frames by hand, so tests can send what a library never would. Every
 * byte the server writes must parse as a frame (stdout carries only protocol): `garbage` collects
 * anything that does not.
 */
export class RawPeer {
  readonly messages: Message[] = [];
  garbage = "";
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly input: Writable,
    output: Readable,
  ) {
    output.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      for (const waiter of this.waiters) {
        waiter();
      }
    });
  }

  /** Writes `text` as is. */
  sendRaw(text: string): void {
    this.input.write(text);
  }

  /** Writes one frame around `body` (any JSON value). */
  sendFrame(body: unknown): void {
    const text = JSON.stringify(body);
    this.sendRaw(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }

  /** Sends a request and resolves with its response. */
  request(method: string, params?: unknown): Promise<Message> {
    const id = this.nextId++;
    this.sendFrame({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  /** Resolves with the first message (received so far or later) that `matches` accepts. */
  waitFor(matches: (message: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(matches);
        if (found !== undefined) {
          this.waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error("no such message in time"));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** `session.event` notifications received so far, their event types in order. */
  eventTypes(): string[] {
    return this.messages.flatMap((message) =>
      message.method === "session.event"
        ? [(message.params as { event: { type: string } }).event.type]
        : [],
    );
  }

  private parse(): void {
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) {
        return;
      }
      const header = this.buffer.subarray(0, headerEnd).toString("utf8");
      const match = /^Content-Length: (\d+)$/i.exec(header);
      if (match === null) {
        this.garbage += this.buffer.toString("utf8");
        this.buffer = Buffer.alloc(0);
        return;
      }
      const length = Number(match[1]);
      const bodyStart = headerEnd + 4;
      if (this.buffer.length < bodyStart + length) {
        return;
      }
      const body = this.buffer.subarray(bodyStart, bodyStart + length).toString("utf8");
      this.buffer = this.buffer.subarray(bodyStart + length);
      this.messages.push(JSON.parse(body) as Message);
    }
  }
}

/** `node dist/cli/main.js --headless ...args` with pipes, and a peer on its stdio. */
export function spawnServer(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): {
  child: ChildProcessWithoutNullStreams;
  peer: RawPeer;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [CLI_PATH, "--headless", ...args], { env, cwd });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, peer: new RawPeer(child.stdin, child.stdout), stderr: () => stderr, exit };
}
