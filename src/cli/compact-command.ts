import { type CompactionResult, nothingToCompact } from "../agent/compaction.js";
import { errorCode, errorMessage, terminalText } from "../events/errors.js";
import { ConfigError } from "../session/config-paths.js";
import { type Reopening, SessionHost } from "../session/host.js";
import { turnloopHome } from "../session/paths.js";
import type { RunConfig } from "../session/run-config.js";
import type { Session, SessionAgentSettings } from "../session/session.js";
import { signalExitCode } from "../session/termination-signals.js";
import type { Command } from "./arguments.js";

/** An id or prefix naming no session or several: a usage error, 64 as for `-p --resume`. */
const UNKNOWN_SESSION_EXIT_CODE = 64;
/**
 * A compaction refused before anything is written, 64 as `-p --resume` refuses: the session's
 * folder is gone or its config file invalid, its model does not resolve here, nothing to compact.
 */
const REFUSED_EXIT_CODE = 64;

/**
 * Why `sessions compact` refuses the session being reopened (host.ts `open`'s `refuse`): its
 * model (`--model`, else the one it ran with) does not resolve here, or a manual compaction would
 * remove nothing (compaction.ts `nothingToCompact`); undefined when it goes on.
 */
function compactionRefusal(host: SessionHost, { start, state, contextWindow }: Reopening) {
  const model = host.modelForSession(state.changedModel ?? start.model);
  if (!model.ok) {
    return model.message.replace(/^turnloop: /, "");
  }
  return nothingToCompact(state.history, contextWindow(model.configuration.id));
}

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
 * Reopens `sessionId` (as `given`) for a compaction, checked first ({@link compactionRefusal}).
 * @returns the session, or the exit code after saying on `stderr` why not: 64 when it was refused
 * before anything was written (its folder gone, its folder's config invalid, its model unusable
 * here, nothing to compact), 1 otherwise (held elsewhere, a store that fails).
 */
async function openForCompaction(
  host: SessionHost,
  sessionId: string,
  given: string,
  stderr: NodeJS.WritableStream,
): Promise<Session | number> {
  try {
    return await host.open(sessionId, undefined, (reopening) => compactionRefusal(host, reopening));
  } catch (error) {
    const missing = errorCode(error) === "ENOENT";
    stderr.write(`turnloop: ${missing ? `no session ${given}` : errorMessage(error)}\n`);
    return error instanceof ConfigError || missing ? REFUSED_EXIT_CODE : 1;
  }
}

/**
 * Runs `turnloop sessions compact <id> [instructions]`: reopens the session, compacts its history
 * with the session's model (or `--model`), and prints the before and after token counts.
 * @returns the exit code: 0 on success; 64 when the id or prefix names no session or more than
 * one, or the compaction is refused before anything is written ({@link compactionRefusal}, the
 * session's folder gone); 1 when the session cannot be opened (held by another process, a store
 * that fails) or the compaction failed; 130 when Ctrl-C cancelled it (said on stderr).
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
  // A failed compaction's message is the provider's: without its control sequences.
  const fail = (message: string) => {
    io.stderr.write(`turnloop: ${terminalText(message)}\n`);
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
  const session = await openForCompaction(host, resolved.sessionId, command.sessionId, io.stderr);
  if (typeof session === "number") {
    return session;
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
