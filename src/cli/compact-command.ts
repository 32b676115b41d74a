import { errorCode, errorMessage } from "../events/errors.js";
import { SessionHost } from "../session/host.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import type { Session } from "../session/session.js";
import type { Command } from "./arguments.js";

/** An id or prefix naming no session or several: a usage error, 64 as for `-p --resume`. */
const UNKNOWN_SESSION_EXIT_CODE = 64;

/**
 * Runs `turnloop sessions compact <id> [instructions]`: reopens the session, compacts its history
 * with the session's model (or `--model`), and prints the before and after token counts.
 * @returns the exit code: 0 on success; 64 when the id or prefix names no session or more than
 * one; 1 when the session cannot be opened or compaction failed.
 */
export async function runCompactCommand(
  command: Extract<Command, { kind: "sessions-compact" }>,
  io: {
    config: RunConfig;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
    env: NodeJS.ProcessEnv;
  },
): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`turnloop: ${message}\n`);
    return 1;
  };
  let host: SessionHost;
  try {
    host = new SessionHost({ home: turnloopHome(io.env), env: io.env, config: io.config });
  } catch (error) {
    return fail(errorMessage(error));
  }
  const resolved = await host.resolveId(command.sessionId);
  if (!resolved.ok) {
    io.stderr.write(`turnloop: ${resolved.message}\n`);
    return UNKNOWN_SESSION_EXIT_CODE;
  }
  let session: Session;
  try {
    session = await host.open(resolved.sessionId);
  } catch (error) {
    return fail(
      errorCode(error) === "ENOENT" ? `no session ${command.sessionId}` : errorMessage(error),
    );
  }
  try {
    const model = host.modelForSession(session.start.model);
    if (!model.ok) {
      return fail(model.message.replace(/^turnloop: /, ""));
    }
    const settings = host.agentSettings(session, model.configuration, {
      autopilot: false,
      noAskReason: "compaction runs no tools",
    });
    const result = await session.compact(settings, command.instructions);
    if (!result.ok) {
      return fail(`compaction failed: ${result.message}`);
    }
    io.stdout.write(
      `compacted ${session.id}: ${result.preCompactionTokens} → ${result.postCompactionTokens} tokens, ${result.messagesRemoved} messages summarised\n`,
    );
    return 0;
  } finally {
    await host.close(session);
  }
}
