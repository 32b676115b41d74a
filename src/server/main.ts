/**
 * `turnloop --headless --stdio | --port N` and `turnloop serve`: the SDK's JSON-RPC server.
 *
 * - stdio: one connection on stdin/stdout. stdout carries only protocol frames (console output is
 *   sent to stderr); the server ends when stdin closes, after answering the requests read before
 *   its end and cancelling what runs.
 * - TCP: listens on 127.0.0.1 (or `--host H`) and prints `turnloop server listening on port N`
 *   on stdout (the line the Copilot SDK waits for). When `TURNLOOP_CONNECTION_TOKEN` (or the
 *   Copilot SDK's `COPILOT_CONNECTION_TOKEN`) is set, each connection must `connect {token}`
 *   first; a host beyond loopback is refused without one (issue 22: workers on a network).
 * Both end on `runtime.shutdown`, SIGINT, SIGTERM or SIGHUP (session/termination-signals.ts);
 * sessions are cancelled and closed first.
 * A TCP server also ends when the process that started it goes away, as the Copilot CLI does
 * (an app's SDK spawns it and must not leave it behind): its stdin, when a pipe, closes, or the
 * parent process dies (checked every second).
 */

import { fstatSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { StreamMessageReader } from "vscode-jsonrpc/node.js";
import { errorMessage, warningLine, withoutPrefix } from "../events/errors.js";
import { FramedMessageWriter } from "../protocol/framed-writer.js";
import { SessionHost } from "../session/host.js";
import { maxMessageBytes } from "../session/message-size.js";
import { openSessionStore } from "../session/open-store.js";
import { OpeningGate } from "../session/opening-gate.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import { PRODUCER_VERSION } from "../session/session.js";
import { onTerminationSignal } from "../session/termination-signals.js";
import { ClientConnection, type ServerContext } from "./connection.js";
import { FramingGuard } from "./framing.js";
import { METHODS } from "./methods.js";
import { RecentSessions } from "./recent-sessions.js";
import { SERVER_SETTING_NAMES } from "./server-model.js";

/** Where the server listens. */
type ServerTransport = { stdio: true } | { port: number; host?: string };

/**
 * Runs the server until it is shut down.
 * @returns the process exit code: 0 after a shutdown, 64 for bad options, 1 when the port
 * cannot be opened.
 */
export async function runServerCommand(
  transport: ServerTransport,
  config: RunConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const log = (message: string) => process.stderr.write(`turnloop: ${message}\n`);
  const opened = openHost(config, env, log);
  if (opened === undefined) {
    return 64;
  }
  const { host, messageLimit } = opened;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      // Once stopping (stdin's end, runtime.shutdown, a signal), SIGTERM or SIGHUP ends the
      // process at once, as Node does: a close that waits cannot keep it (each event the store
      // took is in the log already: file-store.ts writes it at once).
      stopListening();
      resolve();
    };
  });
  const context: ServerContext = {
    host,
    version: PRODUCER_VERSION,
    maxMessageBytes: messageLimit,
    defaultMode: config.autopilot.value ? "autopilot" : "interactive",
    sessions: new Map(),
    detached: new RecentSessions(),
    deleted: new RecentSessions(),
    openings: new OpeningGate(),
    connections: new Set(),
    requestShutdown: () => stop(),
    log,
  };
  process.once("SIGINT", () => stop());
  // A second SIGTERM or SIGHUP (the listener gone) ends the process at once, as Node does.
  const stopListening = onTerminationSignal(() => stop());
  const code =
    "stdio" in transport
      ? await serveStdio(context, stopped)
      : await serveTcp(context, transport, stopped);
  // Provider connections may linger (keep-alive); nothing of ours is left to wait for.
  setTimeout(() => process.exit(code), 200).unref();
  return code;
}

/**
 * The server's session host on the configured store, and its message size limit.
 * @returns undefined, after logging why, when the store or a setting is refused (exit 64).
 */
function openHost(
  config: RunConfig,
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
): { host: SessionHost; messageLimit: number } | undefined {
  try {
    // A second process may resume and use this server's sessions (issue 25).
    const home = turnloopHome(env);
    // An operator sees the database's outages: one line when it is unreachable, one when back,
    // whether or not this worker holds a session then (session-store.ts `watch`).
    const store = openSessionStore(home, config.store?.value, log);
    const host = new SessionHost({
      home,
      env,
      config,
      store,
      releaseWhenIdle: true,
      settingNames: SERVER_SETTING_NAMES,
    });
    store.watch?.();
    return { host, messageLimit: maxMessageBytes(env) };
  } catch (error) {
    log(errorMessage(error));
    return undefined;
  }
}

async function serveStdio(context: ServerContext, stopped: Promise<void>): Promise<number> {
  // stdout is the protocol channel: anything a library prints goes to stderr instead.
  for (const name of ["log", "info", "debug", "warn"] as const) {
    console[name] = (...values: unknown[]) => console.error(...values);
  }
  // Messages written while a write is in flight leave together in the next one (framed-writer.ts).
  const connection = openConnection(context, process.stdin, process.stdout, () =>
    process.stdin.destroy(),
  );
  await Promise.race([connection.closed, stopped]);
  // stdin's end stops the server too: a SIGTERM while it closes ends it at once.
  context.requestShutdown();
  await closeEverything(context);
  return 0;
}

async function serveTcp(
  context: ServerContext,
  { port, host = LOOPBACK }: { port: number; host?: string },
  stopped: Promise<void>,
): Promise<number> {
  const { env } = context.host;
  const token = env.TURNLOOP_CONNECTION_TOKEN || env.COPILOT_CONNECTION_TOKEN;
  if ((token === undefined || token === "") && !isLoopback(host)) {
    context.log(
      `refusing to listen on ${host} without a connection token: set TURNLOOP_CONNECTION_TOKEN (clients send it with connect)`,
    );
    await closeEverything(context);
    return 64;
  }
  if (token === undefined || token === "") {
    context.log(
      withoutPrefix(warningLine("no TURNLOOP_CONNECTION_TOKEN: any local process may connect")),
    );
  }
  const sockets = new Set<Socket>();
  // A client that ends its side still reads the answers to what it sent: ours ends at hang-up.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", (error) => context.log(`connection error: ${error.message}`));
    openConnection(context, socket, socket, () => socket.end(), token === "" ? undefined : token);
  });
  const listening = await listen(server, port, host);
  if (!listening.ok) {
    context.log(`cannot listen on ${host}:${port}: ${listening.message}`);
    return 1;
  }
  process.stdout.write(`turnloop server listening on port ${listening.port}\n`);
  const unwatch = watchStarter(context);
  await stopped;
  unwatch();
  server.close();
  await closeEverything(context);
  for (const socket of sockets) {
    socket.destroy();
  }
  return 0;
}

/**
 * A listening connection on a byte stream pair, its input read through a {@link FramingGuard}:
 * a framing fault is answered and closes the connection instead of leaving the client waiting;
 * at the input's end, the requests read before it are answered before the connection closes.
 */
function openConnection(
  context: ServerContext,
  input: Readable,
  output: Writable,
  hangUp: () => void,
  token?: string,
): ClientConnection {
  let connection: ClientConnection | undefined;
  const guard = new FramingGuard(context.maxMessageBytes, {
    onFault: (fault) => void connection?.refuseStream(fault),
    onEmptyFrame: () => connection?.refuseEmptyMessage(),
    onAnswerTooLarge: (id, reason) => context.log(`${reason}; request ${id} fails`),
    onEnd: (frames, done) => {
      void (connection?.answerBeforeEnd(frames) ?? Promise.resolve()).then(done);
    },
  });
  input.pipe(guard);
  // A reset socket closes without ending: end the reader too, so the connection closes.
  input.once("close", () => {
    if (!guard.writableEnded) {
      guard.end();
    }
  });
  connection = new ClientConnection(
    context,
    new StreamMessageReader(guard),
    new FramedMessageWriter(output),
    METHODS,
    hangUp,
    token,
  );
  connection.listen();
  return connection;
}

/** The address the server listens on unless `--host` says otherwise. */
const LOOPBACK = "127.0.0.1";

/** Whether `host` is reachable from this machine only (`localhost`, `127.x.x.x`, `::1`). */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function listen(
  server: Server,
  port: number,
  host: string,
): Promise<{ ok: true; port: number } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    server.once("error", (error) => resolve({ ok: false, message: error.message }));
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        ok: true,
        port: typeof address === "object" && address !== null ? address.port : port,
      });
    });
  });
}

/**
 * Stops the server when whoever started it is gone: stdin (when a pipe or socket, not a terminal
 * or /dev/null) reaches its end, or the parent process changes (it died and the server was
 * handed to another). @returns a function that stops watching.
 */
function watchStarter(context: ServerContext): () => void {
  const stop = (reason: string) => {
    context.log(`${reason}: shutting down`);
    context.requestShutdown();
  };
  let piped = false;
  try {
    const stats = fstatSync(0);
    piped = stats.isFIFO() || stats.isSocket();
  } catch {
    piped = false;
  }
  const onEnd = () => stop("stdin closed");
  if (piped) {
    process.stdin.on("end", onEnd);
    process.stdin.on("close", onEnd);
    process.stdin.resume();
  }
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (parent !== 1 && process.ppid !== parent) {
      stop(`the parent process ${parent} exited`);
    }
  }, 1_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    process.stdin.off("end", onEnd);
    process.stdin.off("close", onEnd);
    if (piped) {
      process.stdin.destroy();
    }
  };
}

/**
 * Cancels every prompt and closes every session, so every log ends consistently; what a session
 * could not store even then (storage-error.ts `HeldBackLostError`) is said on stderr.
 */
async function closeEverything(context: ServerContext): Promise<void> {
  const sayLost = (error: unknown) => process.stderr.write(`turnloop: ${errorMessage(error)}\n`);
  await Promise.all(
    [...context.sessions.values()].map((session) => session.close().catch(sayLost)),
  );
  await Promise.all([...context.connections].map((connection) => connection.dispose()));
  await context.host.closeAll();
}
