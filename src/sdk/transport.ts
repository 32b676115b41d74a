/**
 * How the SDK reaches a turnloop server: a child process on stdio (`<cli> --headless --stdio`),
 * or a TCP connection to one already listening (`turnloop --headless --port N`).
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { Socket } from "node:net";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type Message, type MessageWriter, StreamMessageWriter } from "vscode-jsonrpc/node.js";
import { FramedMessageReader } from "./framed-reader.js";
import { heldUntilReleased, prefixedLines } from "./server-stderr.js";

/** A byte stream to the server, framed for vscode-jsonrpc. */
export interface Transport {
  reader: FramedMessageReader;
  writer: MessageWriter;
  /** Whether the SDK started the server (then `stop` shuts it down). */
  owned: boolean;
  /** The end of the server's stderr, for error messages. */
  stderrTail(): string;
  /**
   * The server answered `connect`: a spawned server's stderr held until then goes to the app's
   * stderr now, and what follows as it comes ({@link spawnServer}). Nothing for a TCP connection.
   */
  started(): void;
  /**
   * Resolves once a spawned server has exited and its stderr is read to the end (its last words
   * are in {@link stderrTail}), or after `boundMs` milliseconds, whichever is first; at once for a
   * TCP connection, whose server's stderr is not ours.
   */
  exited(boundMs: number): Promise<void>;
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
 * The size of libuv's thread pool the SDK gives a server it starts. Every session's log sync
 * (`fdatasync`), file open and read in the server goes through that pool, and with Node's default
 * of 4 threads many sessions queue there: at 1,000 sessions prompted at once, per-turn p99 4.2–5.1 s
 * with 4 threads and 0.5–0.7 s with 32 (bench/notes/targets.md, "Server lane … session 8");
 * about 0.2 MiB more resident.
 * Only whoever starts the server can set it: Node reads `UV_THREADPOOL_SIZE` once, when the pool is
 * first used, and its module loader uses it before any of the server's code runs.
 */
export const SERVER_THREAD_POOL_SIZE = 32;

/** `env` for the server: with {@link SERVER_THREAD_POOL_SIZE} unless it sets `UV_THREADPOOL_SIZE`. */
export function serverEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.UV_THREADPOOL_SIZE === undefined
    ? { ...env, UV_THREADPOOL_SIZE: String(SERVER_THREAD_POOL_SIZE) }
    : env;
}

/**
 * The Node flags of a script's first line when it is `#!/usr/bin/env -S node <flags>`, as
 * turnloop's `dist/cli/main.js` and `dist/cli/turnloop.cjs` begin: `--max-semi-space-size=2
 * --min-semi-space-size=2`, V8's young generation capped at 2 MiB a semi-space (src/cli/main.ts
 * says why; a server streaming a 5 MB reply peaked about 20 MiB lower, bench/notes/memory31.md).
 * So a script run with this process's Node starts as it does when run itself. None for any other
 * first line, or when the file cannot be read (the spawn then reports it).
 */
export async function firstLineNodeFlags(path: string): Promise<string[]> {
  let head: string;
  try {
    const file = await open(path, "r");
    try {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(512), 0, 512, 0);
      head = buffer.toString("utf8", 0, bytesRead);
    } finally {
      await file.close();
    }
  } catch {
    return [];
  }
  const match = /^#!\S*\/env -S node((?:[ \t]+--\S+)*)[ \t]*\r?\n/.exec(head);
  return match?.[1]?.split(/[ \t]+/).filter(Boolean) ?? [];
}

/**
 * Spawns the server, in {@link serverEnvironment}`(env)`. A path ending in `.js`, `.mjs` or `.cjs`
 * runs with this process's Node, given the flags of the script's first line
 * ({@link firstLineNodeFlags}), as the script runs when started itself. Its stderr goes to
 * `onStderr` as it comes, else to this process's stderr, each line prefixed (server-stderr.ts),
 * from the time the server answers `connect` ({@link Transport.started}, which writes what came
 * before): a server that fails to start says why in the error the app gets (client.ts
 * `withServerStderr`, its last 8 KB), which an app without a terminal needs, and so not twice on
 * a terminal as well. What a running server writes goes to the terminal as it comes, and is
 * repeated in an error only when the server ends before answering a request.
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
  const flags = script ? await firstLineNodeFlags(options.cliPath) : [];
  const args = [
    ...(script ? [...flags, options.cliPath] : []),
    "--headless",
    "--stdio",
    ...options.args,
  ];
  const env = serverEnvironment(options.env);
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: "pipe" });
  let tail = "";
  const toApp = prefixedLines((text) => process.stderr.write(text));
  const onStderr = options.onStderr ?? toApp.onStderr;
  // Held until `started` when it goes to this process's stderr (see above).
  const relay = heldUntilReleased(onStderr, options.onStderr === undefined);
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL);
    relay.write(text);
  });
  // Writes after the child died must not crash the app; the connection reports the close.
  child.stdin.on("error", () => undefined);
  // "close": the child has exited and its stdio streams are closed (its stderr read to the end).
  const closed = new Promise<void>((resolve) =>
    child.once("close", () => {
      toApp.flush();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) =>
      reject(new Error(`cannot start ${options.cliPath}: ${error.message}`)),
    );
  });
  return {
    reader: new FramedMessageReader(child.stdout),
    writer: settledWriter(child.stdin),
    owned: true,
    stderrTail: () => tail,
    started: relay.release,
    exited: (boundMs) => withinBound(closed, boundMs),
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
        reader: new FramedMessageReader(socket),
        writer: settledWriter(socket),
        owned: false,
        stderrTail: () => "",
        started: () => undefined,
        exited: async () => undefined,
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

/** `promise`, or after `boundMs` milliseconds (a timer that keeps no process alive) if sooner. */
function withinBound(promise: Promise<void>, boundMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, boundMs);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
