import { resolve } from "node:path";
import { errorCode, errorMessage } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import { agentSettingsFor } from "../session/agent-settings.js";
import { SessionHost } from "../session/host.js";
import type { Session } from "../session/session.js";
import { SessionLockedError } from "../session/session-lock.js";
import type { PromptOptions } from "./arguments.js";
import { terminalPermission } from "./terminal-permission.js";
import { TerminalRenderer } from "./terminal-renderer.js";

/** Said to the model when a call needs permission and `-p` has no terminal to ask on. */
const NO_TERMINAL_REASON =
  "it needs the user's permission and there is no terminal to ask on; the user can rerun with --allow-all-tools or --allow-tool NAME";

/** Exit codes of `turnloop -p`. */
export const EXIT = {
  endTurn: 0,
  error: 1,
  /**
   * max_tokens, max_turn_requests or refusal, or autopilot's continuation cap without
   * task_complete: the prompt stopped without finishing.
   */
  incomplete: 2,
  usage: 64,
  cancelled: 130,
} as const;

/** Where `-p` writes and what it reads from the environment. */
export interface PromptIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Whether stderr is a terminal (colour). */
  interactive: boolean;
  /** Whether stdin is a terminal: permission questions are asked there, else denied. */
  stdinIsTerminal: boolean;
}

/**
 * Runs `turnloop -p`: opens or resumes the session, streams the answer, prints the summary.
 * Ctrl-C cancels the prompt cleanly; a second Ctrl-C exits at once.
 * @returns the process exit code ({@link EXIT}).
 */
export async function runPromptCommand(options: PromptOptions, io: PromptIo): Promise<number> {
  const cwd = resolve(options.cwd);
  let host: SessionHost;
  try {
    host = new SessionHost({ home: io.home, env: io.env, face: { ...options, cwd } });
  } catch (error) {
    io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
    return EXIT.usage;
  }
  const resuming = options.resume !== undefined || options.continue;
  // A new session needs a model before anything is written; a resumed one may use its own.
  const early = resuming ? undefined : host.resolveModel();
  if (early !== undefined && !early.ok) {
    io.stderr.write(`${early.message}\n`);
    return EXIT.usage;
  }
  const opened = await openSession(host, options, cwd, early?.configuration.id ?? "");
  if (!opened.ok) {
    io.stderr.write(`turnloop: ${opened.message}\n`);
    return opened.code;
  }
  const { session } = opened;
  if (session.repairNotice !== undefined) {
    io.stderr.write(`turnloop: ${session.repairNotice}\n`);
  }
  const resolved = early ?? host.modelForSession(session.start.model);
  if (!resolved.ok) {
    await host.close(session);
    io.stderr.write(`${resolved.message}\n`);
    return EXIT.usage;
  }
  const sessionOptions = host.sessionOptions(resolved.configuration, {
    autopilot: options.autopilot,
    ...(io.stdinIsTerminal
      ? { ask: terminalPermission(process.stdin, io.stderr) }
      : { noAskReason: NO_TERMINAL_REASON }),
  });
  const settings = agentSettingsFor(session, sessionOptions);
  const color = io.interactive && io.env.NO_COLOR === undefined;
  const renderer = new TerminalRenderer(io.stdout, io.stderr, color);
  const printJson = (event: SessionEvent) => io.stdout.write(`${JSON.stringify(event)}\n`);
  if (options.outputFormat === "json") {
    session.openingEvents.forEach(printJson);
  }
  const unsubscribe = session.subscribe(
    options.outputFormat === "json" ? printJson : renderer.handle,
  );
  // A reader that goes away (`turnloop -p … | head`) cancels the prompt like Ctrl-C, so the log
  // ends cleanly instead of mid-turn.
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") {
      session.cancel();
    }
  };
  io.stdout.on("error", onStdoutError);
  const started = performance.now();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) {
      process.exit(EXIT.cancelled);
    }
    session.cancel();
  };
  process.on("SIGINT", onInterrupt);
  try {
    const outcome = await session.prompt(settings, options.prompt);
    if (options.outputFormat === "text") {
      renderer.endLine();
      io.stderr.write(`${renderer.summary(performance.now() - started, session.id)}\n`);
    }
    if ("error" in outcome) {
      return EXIT.error;
    }
    switch (outcome.stopReason) {
      case "end_turn":
        if (outcome.autopilotStopped !== undefined) {
          io.stderr.write(
            "turnloop: stopped: autopilot reached --max-autopilot-continues and the task was not marked complete\n",
          );
          return EXIT.incomplete;
        }
        return EXIT.endTurn;
      case "cancelled":
        return EXIT.cancelled;
      case "max_tokens":
      case "max_turn_requests":
      case "refusal":
        io.stderr.write(`turnloop: stopped: ${outcome.stopReason}\n`);
        return EXIT.incomplete;
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    io.stdout.off("error", onStdoutError);
    unsubscribe();
    await host.close(session);
  }
}

/** Opens the session `-p` runs in: `--resume`, `--continue`, or a new one. */
async function openSession(
  host: SessionHost,
  options: PromptOptions,
  cwd: string,
  model: string,
): Promise<{ ok: true; session: Session } | { ok: false; message: string; code: number }> {
  const failed = (message: string, code: number = EXIT.usage) => ({
    ok: false as const,
    message,
    code,
  });
  try {
    if (options.resume !== undefined) {
      const resolved = await host.resolveId(options.resume);
      return resolved.ok
        ? { ok: true, session: await host.resume(resolved.sessionId) }
        : failed(resolved.message);
    }
    if (options.continue) {
      const newest = await host.newestIn(cwd);
      if (newest === undefined) {
        return failed(`no session to continue in ${cwd}; run without --continue to start one`);
      }
      return { ok: true, session: await host.resume(newest.sessionId) };
    }
    return { ok: true, session: await host.create(cwd, model) };
  } catch (error) {
    if (error instanceof SessionLockedError) {
      return failed(error.message, EXIT.error);
    }
    if (errorCode(error) === "ENOENT") {
      return failed(`no session ${options.resume ?? ""} in ${host.home}`);
    }
    return failed(errorMessage(error));
  }
}
