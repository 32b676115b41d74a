import type { CompactionResult } from "../agent/compaction.js";
import { errorCode, errorMessage } from "../events/errors.js";
import { SessionHost } from "../session/host.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import type { Session, SessionAgentSettings } from "../session/session.js";
import { signalExitCode } from "../session/termination-signals.js";
import type { Command } from "./arguments.js";

/** An id or prefix naming no session or several: a usage error, 64 as for `-p --resume`. */
const UNKNOWN_SESSION_EXIT_CODE = 64;

/**
 * `session.compact`, cancelled by Ctrl-C (SIGINT) while it runs: the compaction records that it
 * failed (`cancelled`) and the history stays as it was. A second Ctrl-C exits at once (Node's
 * default), as the listener is removed after the first.
 */
async function compactUntilInterrupted(
  session: Session,
  settings: SessionAgentSettings,
  instructions: string,
): Promise<CompactionResult> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  try {
    return await session.compact(settings, instructions, { signal: controller.signal });
  } finally {
    process.off("SIGINT", interrupt);
  }
}

/**
 * Runs `turnloop sessions compact <id> [instructions]`: reopens the session, compacts its history
 * with the session's model (or `--model`), and prints the before and after token counts.
 * @returns the exit code: 0 on success; 64 when the id or prefix names no session or more than
 * one; 1 when the session cannot be opened or compaction failed; 130 when Ctrl-C cancelled it
 * (said on stderr).
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
    const model = host.modelForSession(session.changedModel ?? session.start.model);
    if (!model.ok) {
      return fail(model.message.replace(/^turnloop: /, ""));
    }
    const settings = host.agentSettings(session, model.configuration, {
      autopilot: false,
      noAskReason: "compaction runs no tools",
    });
    const result = await compactUntilInterrupted(session, settings, command.instructions);
    if (!result.ok && result.cancelled) {
      io.stderr.write(
        `turnloop: compaction of ${session.id} cancelled; the conversation is unchanged\n`,
      );
      return signalExitCode("SIGINT");
    }
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
