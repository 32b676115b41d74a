import { resolve } from "node:path";
import { errorCode, errorMessage } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import { resolveModel } from "../llm/models.js";
import { agentSettingsFor, type SessionOptions } from "../session/agent-settings.js";
import { Session } from "../session/session.js";
import { newestSessionInCwd, resolveSessionId } from "../session/store.js";
import type { PromptOptions } from "./arguments.js";
import { sessionOptionsFrom } from "./face-settings.js";
import { terminalPermission } from "./terminal-permission.js";
import { TerminalRenderer } from "./terminal-renderer.js";

/** Said to the model when a call needs permission and `-p` has no terminal to ask on. */
const NO_TERMINAL_REASON =
  "it needs the user's permission and there is no terminal to ask on; the user can rerun with --allow-all-tools or --allow-tool NAME";

/** Exit codes of `turnloop -p`. */
export const EXIT = {
  endTurn: 0,
  error: 1,
  /** max_tokens, max_turn_requests or refusal: the prompt stopped without finishing. */
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
  const resuming = options.resume !== undefined || options.continue;
  const baseUrl = options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl };
  // A new session needs a model before anything is written; a resumed one may use its own.
  const early = resuming ? undefined : resolveModel({ ...options, ...baseUrl }, io.env);
  if (early !== undefined && !early.ok) {
    io.stderr.write(`${early.message}\n`);
    return EXIT.usage;
  }
  const opened = await openSession(options, io.home, cwd, early?.configuration.id ?? "");
  if (typeof opened === "string") {
    io.stderr.write(`turnloop: ${opened}\n`);
    return EXIT.usage;
  }
  const session = opened;
  const resolved =
    early ?? resolveModel({ model: options.model ?? session.start.model, ...baseUrl }, io.env);
  if (!resolved.ok) {
    await session.close();
    io.stderr.write(`${resolved.message}\n`);
    return EXIT.usage;
  }
  let sessionOptions: SessionOptions;
  try {
    sessionOptions = sessionOptionsFrom(
      { ...options, cwd },
      resolved.configuration,
      io.env,
      io.stdinIsTerminal
        ? { ask: terminalPermission(process.stdin, io.stderr) }
        : { noAskReason: NO_TERMINAL_REASON },
    );
  } catch (error) {
    await session.close();
    io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
    return EXIT.usage;
  }
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
    await session.close();
  }
}

async function openSession(
  options: PromptOptions,
  home: string,
  cwd: string,
  model: string,
): Promise<Session | string> {
  try {
    if (options.resume !== undefined) {
      const resolved = await resolveSessionId(home, options.resume);
      return resolved.ok ? await Session.resume(home, resolved.sessionId) : resolved.message;
    }
    if (options.continue) {
      const newest = await newestSessionInCwd(home, cwd);
      if (newest === undefined) {
        return `no session to continue in ${cwd}; run without --continue to start one`;
      }
      return await Session.resume(home, newest.sessionId);
    }
    return await Session.create(home, cwd, model);
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return `no session ${options.resume ?? ""} in ${home}`;
    }
    return errorMessage(error);
  }
}
