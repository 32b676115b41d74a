import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { errorMessage } from "../events/errors.js";
import type { ModelSettingNames } from "../llm/models.js";
import { batchedOutput } from "../protocol/batched-output.js";
import type { SessionHost } from "../session/host.js";
import { maxMessageBytes } from "../session/message-size.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import {
  onTerminationSignal,
  signalExitCode,
  type TerminationSignal,
} from "../session/termination-signals.js";
import { TurnloopAcpAgent } from "./agent.js";
import { ERROR_CODES } from "./errors.js";
import { acpByteStream } from "./framing.js";
import { answeredBeforeEnd } from "./input-end.js";
import { OpenRequests } from "./invalid-params.js";
import { withDirectOutput } from "./message-writer.js";
import type { AcpStartState } from "./start.js";

/**
 * Runs `turnloop acp`: an Agent Client Protocol v1 agent on stdin/stdout until stdin closes.
 * ACP v1 transports (stdio): stdout carries only protocol messages; diagnostics go to stderr.
 * `initialize` is answered from the run config; the session host (and the session stack it
 * loads) is made on the first request about sessions. `start`: what src/acp/start.ts read of
 * stdin and answered before this module loaded (the connection reads those bytes first).
 * @returns the process exit code: 64 for a bad `TURNLOOP_MAX_MESSAGE_BYTES`, or once stdin closes
 * when the configured model cannot run here (said on stderr at the first request about sessions:
 * {@link reportModelProblem}), else 0.
 */
export async function runAcpCommand(
  config: RunConfig,
  env: NodeJS.ProcessEnv = process.env,
  start?: AcpStartState,
): Promise<number> {
  const limit = messageLimit(env);
  if (limit === undefined) {
    return 64;
  }
  let modelProblem = false;
  const openHost = async () => {
    const { SessionHost } = await import("../session/host.js");
    const home = turnloopHome(env);
    const host = new SessionHost({ home, env, config, settingNames: ACP_SETTING_NAMES });
    modelProblem = reportModelProblem(host);
    return host;
  };
  const agent = new TurnloopAcpAgent({ settings: { config, env }, openHost, log });
  const code = await serve(agent, limit, start);
  return modelProblem ? 64 : code;
}

/**
 * How `turnloop acp`'s errors name the settings of its model (llm/models.ts `ModelSettingNames`):
 * what an editor's user sets, the `env` and `args` of turnloop's entry in the editor's agent
 * server settings (README, "In an editor": Zed's `agent_servers`), as ACP gives a session no model
 * of its own before one runs.
 */
const ACP_SETTING_NAMES: ModelSettingNames = {
  model:
    "TURNLOOP_MODEL in the env of turnloop's entry in the editor's agent server settings (or --model in its args)",
  switchModel: "switch with the session's model setting (the editor's model picker) or /model",
  baseUrl:
    "TURNLOOP_BASE_URL in the env of turnloop's entry in the editor's agent server settings (or --base-url in its args)",
  resumeModel:
    "--model <provider>:<model> in the args of turnloop's entry in the editor's agent server settings",
  environment: " in that env",
  contextWindow:
    "TURNLOOP_CONTEXT_WINDOW in the env of turnloop's entry in the editor's agent server settings (or --context-window in its args)",
};

/**
 * Says on stderr why the configured model cannot run (none configured, `openai-compatible:…`
 * without an endpoint, …), as `-p` says it (llm/models.ts `resolveModel`'s message); `session/new`
 * fails with the same message. A key is not reported (README, "When stdin ends": it belongs to
 * the model, which a session can change): a missing one is ACP's `authenticate`'s.
 * @returns whether there was such a problem (`turnloop acp` then exits 64 once stdin closes).
 */
function reportModelProblem(host: SessionHost): boolean {
  const resolution = host.resolveModel();
  if (resolution.ok || resolution.missingKey !== undefined || resolution.unusableKey === true) {
    return false;
  }
  log(resolution.message);
  return true;
}

/**
 * Runs `turnloop acp` when its run config could not be made (an invalid config file, a sandbox
 * that cannot run): `initialize` is answered, and every request about sessions fails with
 * `-32603` and `message` (which names the file and the key), so the editor can show why; exits
 * 64 once stdin closes. An agent that exits before `initialize` only shows as crashed.
 * `start` as for {@link runAcpCommand}.
 */
export async function runAcpWithoutConfig(
  message: string,
  env: NodeJS.ProcessEnv = process.env,
  start?: AcpStartState,
): Promise<number> {
  const limit = messageLimit(env) ?? maxMessageBytes({});
  const openHost = () => {
    throw new acp.RequestError(ERROR_CODES.internal, `turnloop cannot start sessions: ${message}`);
  };
  await serve(new TurnloopAcpAgent({ settings: undefined, openHost, log }), limit, start);
  return 64;
}

/** Diagnostics: stderr, never stdout, which carries only protocol messages. */
function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** `TURNLOOP_MAX_MESSAGE_BYTES` or the default; `undefined` (said on stderr) when it is bad. */
function messageLimit(env: NodeJS.ProcessEnv): number | undefined {
  try {
    return maxMessageBytes(env);
  } catch (error) {
    log(`turnloop: ${errorMessage(error)}`);
    return undefined;
  }
}

/**
 * Serves `agent` on stdin/stdout until stdin closes, or SIGTERM or SIGHUP comes (its sessions are
 * then cancelled and closed as when stdin closes: their commands stopped, their logs ended, and
 * the process exits with 128 + the signal's number: 143, 129); a signal while it closes ends it at
 * once ({@link watchSignals}). The bytes `start` read come first; the connection's answer to the
 * `initialize` it answered is not written again.
 * @returns 0 once stdin closed.
 */
async function serve(
  agent: TurnloopAcpAgent,
  limit: number,
  start: AcpStartState | undefined,
): Promise<number> {
  keepStdoutForProtocol();
  // Notifications written in one turn of the event loop leave in one write (batched-output.ts).
  const output = batchedOutput(process.stdout);
  // The requests read, for the answers written straight to `output` (invalid-params.ts).
  const requests = new OpenRequests();
  const stream = acpByteStream(Writable.toWeb(output) as WritableStream<Uint8Array>, input(start), {
    log,
    maxMessageBytes: limit,
    onIdlessError: (error) => agent.clientRejectedNotification(error),
    onCancelRead: (sessionId) => agent.cancelRead(sessionId),
    requests,
    ...(start === undefined ? {} : { prefix: start.read.bytes }),
  });
  const answered = start?.answered;
  // The connection's own messages skip the SDK's web-stream writer (message-writer.ts).
  const direct = withDirectOutput(
    stream,
    output,
    answered === undefined ? undefined : { ...answered, log },
    requests,
  );
  const signals = watchSignals();
  // At the end of stdin, every request read is answered before the connection closes.
  const connection = agent.app.connect(
    answeredBeforeEnd(direct, () => {
      signals.stopping();
      agent.inputEnded();
    }),
  );
  const ended = await Promise.race([connection.closed.then(() => undefined), signals.first]);
  signals.stopping();
  await agent.shutdown();
  // The last answers may still wait for their turn to be written.
  await new Promise<void>((resolve) => output.end(() => resolve()));
  signals.stopListening();
  if (ended !== undefined) {
    // stdin is still open: nothing else would end the process.
    process.exit(signalExitCode(ended));
  }
  return 0;
}

/**
 * SIGTERM and SIGHUP while `turnloop acp` serves. The first one before it stops settles `first`
 * (the sessions are then closed as when stdin closes). Once it is stopping (stdin ended, or a
 * signal came: `stopping()`), a signal ends the process at once, as it ends the server
 * (server/main.ts): closing may wait (a prompt's cancel waiting on the store), and a supervisor's
 * SIGTERM must not wait with it. Each event the store took is in the log already (file-store.ts
 * writes it at once); the commands the model started are killed, and the exit code is
 * 128 + the signal's number, as for the first signal.
 */
function watchSignals(): {
  first: Promise<TerminationSignal>;
  stopping: () => void;
  stopListening: () => void;
} {
  let stopping = false;
  let stopListening = (): void => undefined;
  const first = new Promise<TerminationSignal>((resolve) => {
    stopListening = onTerminationSignal((signal) => {
      if (stopping) {
        exitAtOnce(signal).catch(() => process.exit(signalExitCode(signal)));
      } else {
        stopping = true;
        resolve(signal);
      }
    });
  });
  return {
    first,
    stopping: () => {
      stopping = true;
    },
    stopListening,
  };
}

/** Kills the command process groups still running (imported now: off the start-up path), exits. */
async function exitAtOnce(signal: TerminationSignal): Promise<never> {
  const { killCommandProcessGroups } = await import("../tools/command-process.js");
  killCommandProcessGroups();
  process.exit(signalExitCode(signal));
}

/** stdin as a web stream; an empty, closed one when it already ended while `start` read it. */
function input(start: AcpStartState | undefined): ReadableStream<Uint8Array> {
  if (start?.read.ended === true) {
    return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  }
  return Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
}

/**
 * A dependency that prints with `console.log` would corrupt the protocol stream: send such output
 * to stderr instead.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
