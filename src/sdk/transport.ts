/**
 * How the SDK reaches a turnloop server: a child process on stdio (`<cli> --headless --stdio`),
 * or a TCP connection to one already listening (`turnloop --headless --port N`).
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Socket } from "node:net";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  type Message,
  type MessageReader,
  type MessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node.js";

/** A byte stream to the server, framed for vscode-jsonrpc. */
export interface Transport {
  reader: MessageReader;
  writer: MessageWriter;
  /** Whether the SDK started the server (then `stop` shuts it down). */
  owned: boolean;
  /** The end of the server's stderr, for error messages. */
  stderrTail(): string;
  /** Closes the stream; for a child, waits for it to exit (SIGKILL after `graceMs`). */
  close(graceMs: number): Promise<void>;
}

const STDERR_TAIL = 8_192;

/**
 * A message writer for `stream` whose `write` never rejects. vscode-jsonrpc's `sendRequest`
 * awaits the write inside a promise executor and rethrows a failure there, where nothing can catch
 * it: a request written just as the server's end of the stream closed ("This socket has been
 * ended by the other party") became an unhandled rejection that crashed the app. The failure still
 * reaches the connection (`onError`, fired by the stream writer itself), the stream is destroyed,
 * and the connection's close rejects the calls still waiting (client.ts).
 */
export function settledWriter(stream: Writable): MessageWriter {
  const writer = new StreamMessageWriter(stream);
  return {
    onError: writer.onError,
    onClose: writer.onClose,
    write: (message: Message) =>
      writer.write(message).catch(() => {
        // A stream that failed a write is done: its close ends the connection.
        stream.destroy();
      }),
    end: () => writer.end(),
    dispose: () => writer.dispose(),
  };
}

/** `dist/cli/main.js` of the installed package (this file is `dist/sdk/transport.js`). */
export function defaultCliPath(): string {
  return fileURLToPath(new URL("../cli/main.js", import.meta.url));
}

/**
 * Spawns the server. A path ending in `.js`, `.mjs` or `.cjs` runs with this process's Node.
 * @throws Error when the process cannot be started (missing file, no permission).
 */
export async function spawnServer(options: {
  cliPath: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  onStderr?: (text: string) => void;
}): Promise<Transport> {
  const script = /\.[cm]?js$/.test(options.cliPath);
  const command = script ? process.execPath : options.cliPath;
  const args = [...(script ? [options.cliPath] : []), "--headless", "--stdio", ...options.args];
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
  let tail = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL);
    options.onStderr?.(text);
  });
  // Writes after the child died must not crash the app; the connection reports the close.
  child.stdin.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) =>
      reject(new Error(`cannot start ${options.cliPath}: ${error.message}`)),
    );
  });
  return {
    reader: new StreamMessageReader(child.stdout),
    writer: settledWriter(child.stdin),
    owned: true,
    stderrTail: () => tail,
    close: (graceMs) => stopChild(child, graceMs),
  };
}

/**
 * Connects to a server on `host:port`.
 * @throws Error when nothing listens there.
 */
export function connectTcp(host: string, port: number): Promise<Transport> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    socket.once("error", (error) =>
      reject(new Error(`cannot connect to turnloop at ${host}:${port}: ${error.message}`)),
    );
    socket.connect(port, host, () => {
      socket.on("error", () => undefined);
      resolve({
        reader: new StreamMessageReader(socket),
        writer: settledWriter(socket),
        owned: false,
        stderrTail: () => "",
        close: () =>
          new Promise<void>((done) => {
            if (socket.destroyed) {
              done();
              return;
            }
            socket.once("close", () => done());
            socket.end();
          }),
      });
    });
  });
}

async function stopChild(child: ChildProcessWithoutNullStreams, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Closing stdin is the server's cue to cancel what runs and exit.
  child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
