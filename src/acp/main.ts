import { Readable, Writable } from "node:stream";
import { errorMessage } from "../events/errors.js";
import { batchedOutput } from "../protocol/batched-output.js";
import { maxMessageBytes } from "../session/message-size.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import { TurnloopAcpAgent } from "./agent.js";
import { acpByteStream } from "./framing.js";

/**
 * Runs `turnloop acp`: an Agent Client Protocol v1 agent on stdin/stdout until stdin closes.
 * ACP v1 transports (stdio): stdout carries only protocol messages; diagnostics go to stderr.
 * `initialize` is answered from the run config; the session host (and the session stack it
 * loads) is made on the first request about sessions.
 * @returns the process exit code: 64 for a bad `TURNLOOP_MAX_MESSAGE_BYTES`, else 0.
 */
export async function runAcpCommand(
  config: RunConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let limit: number;
  try {
    limit = maxMessageBytes(env);
  } catch (error) {
    log(`turnloop: ${errorMessage(error)}`);
    return 64;
  }
  keepStdoutForProtocol();
  const openHost = async () => {
    const { SessionHost } = await import("../session/host.js");
    return new SessionHost({ home: turnloopHome(env), env, config });
  };
  const agent = new TurnloopAcpAgent({ settings: { config, env }, openHost, log });
  // Notifications written in one turn of the event loop leave in one write (batched-output.ts).
  const output = batchedOutput(process.stdout);
  const stream = acpByteStream(
    Writable.toWeb(output) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    {
      log,
      maxMessageBytes: limit,
      onIdlessError: (error) => agent.clientRejectedNotification(error),
    },
  );
  const connection = agent.app.connect(stream);
  await connection.closed;
  await agent.shutdown();
  // The last answers may still wait for their turn to be written.
  await new Promise<void>((resolve) => output.end(() => resolve()));
  return 0;
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
