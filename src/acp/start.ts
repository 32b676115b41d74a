/**
 * The start of `turnloop acp`: `initialize` is answered before the ACP SDK and zod load
 * (issue 26, figure 7a: loading them was about half of spawn → `initialize` answered). No value
 * of the SDK is imported here; src/acp/main.ts, which serves the connection, loads after the
 * answer is written.
 */

import { maxMessageBytes } from "../session/message-size.js";
import type { RunConfig } from "../session/run-config.js";
import { onTerminationSignal, signalExitCode } from "../session/termination-signals.js";
import { type AuthenticationSettings, authMethods } from "./auth-methods.js";
import {
  type FirstLineReading,
  type FirstRead,
  initializeRequestId,
  readFirstLine,
} from "./first-line.js";
import { initializeResponse } from "./initialize.js";

/** What was read and answered before the connection was served (src/acp/main.ts). */
export interface AcpStartState {
  read: FirstRead;
  /** The `initialize` request answered early: its id and the answer's JSON text, no `\n`. */
  answered: { id: string | number; line: string } | undefined;
}

/** `turnloop acp` with stdin's first line being read from now on. */
export interface AcpStart {
  /** Runs the agent under `config` (see src/acp/main.ts `runAcpCommand`). */
  run(config: RunConfig, env: NodeJS.ProcessEnv): Promise<number>;
  /** Runs the agent whose run config failed with `message` (`runAcpWithoutConfig`). */
  runWithoutConfig(message: string, env: NodeJS.ProcessEnv): Promise<number>;
}

/**
 * Starts reading stdin's first line at once (beside the run config being made). When the run
 * config is there (or failed) and the line is an `initialize` request the SDK would answer with
 * success (first-line.ts `initializeRequestId`), its answer goes to stdout at once: the same
 * `initializeResponse(authMethods(settings))` the SDK's handler gives. Then `beforeServing` is
 * called (nothing by default; src/cli/v8-flags.ts says what a V8 flag set there would cost), the
 * SDK loads and its connection reads every byte
 * taken so far first, that line included (so the agent records the client's capabilities), and
 * its own answer to that line is left out of stdout (message-writer.ts). Anything else goes to
 * the SDK unchanged. SIGTERM or SIGHUP while waiting for the line exits 143 or 129, as the served
 * connection does.
 */
export function startAcp(
  beforeServing: () => void = () => undefined,
  input: NodeJS.ReadStream = process.stdin,
): AcpStart {
  const first = readFirstLine(input);
  const serve = () => {
    beforeServing();
    return import("./main.js");
  };
  return {
    async run(config, env) {
      if (messageLimit(env) === undefined) {
        // main.ts says why on stderr and exits 64 without reading stdin.
        first.stop();
        const { runAcpCommand } = await serve();
        return runAcpCommand(config, env);
      }
      const state = await answerEarly(first, { config, env }, env);
      const { runAcpCommand } = await serve();
      return runAcpCommand(config, env, state);
    },
    async runWithoutConfig(message, env) {
      const state = await answerEarly(first, undefined, env);
      const { runAcpWithoutConfig } = await serve();
      return runAcpWithoutConfig(message, env, state);
    },
  };
}

/** Waits for the first line and answers it when it is a valid `initialize` (see {@link startAcp}). */
async function answerEarly(
  first: FirstLineReading,
  settings: AuthenticationSettings | undefined,
  env: NodeJS.ProcessEnv,
): Promise<AcpStartState> {
  const stopListening = onTerminationSignal((signal) => process.exit(signalExitCode(signal)));
  const read = await first.read;
  stopListening();
  const limit = messageLimit(env);
  const id =
    read.line === undefined || limit === undefined
      ? undefined
      : initializeRequestId(read.line, limit);
  if (id === undefined) {
    return { read, answered: undefined };
  }
  const result = initializeResponse(settings === undefined ? [] : authMethods(settings));
  const line = JSON.stringify({ jsonrpc: "2.0", id, result });
  process.stdout.write(`${line}\n`);
  return { read, answered: { id, line } };
}

/** `TURNLOOP_MAX_MESSAGE_BYTES`, or `undefined` when it is bad (main.ts reports that). */
function messageLimit(env: NodeJS.ProcessEnv): number | undefined {
  try {
    return maxMessageBytes(env);
  } catch {
    return undefined;
  }
}
