import type { PromptOutcome } from "../agent/loop.js";
import { errorMessage, warningLine } from "../events/errors.js";
import type { ModelConfiguration } from "../llm/models.js";
import { monotonicMilliseconds } from "../llm/stall-watchdog.js";
import { workingDirectoryProblem } from "../session/face-config.js";
import { type ModelResolution, SessionHost } from "../session/host.js";
import { reportGathered, startMcpServers, startupWaitFrom } from "../session/mcp-servers.js";
import { sameFolder } from "../session/paths.js";
import { isEmptyPrompt } from "../session/prompt-attachments.js";
import type { RunConfig } from "../session/run-config.js";
import type { Session, SessionAgentSettings } from "../session/session.js";
import type { PromptOptions } from "./arguments.js";
import { outcomeNote } from "./event-notes.js";
import { gatherWithTrust } from "./mcp-trust-question.js";
import { noTerminalReason } from "./no-terminal-reason.js";
import { promptText } from "./prompt-input.js";
import { type PromptOutput, promptOutput } from "./prompt-output.js";
import { openPromptSession, sayNotOpened, unknownSession } from "./prompt-session.js";
import { watchPromptStops } from "./prompt-stops.js";
import { Spinner } from "./spinner.js";
import { stdinAttachedNotice, stdinCutWarning } from "./stdin-attachment.js";
import { terminalPermission } from "./terminal-permission.js";
import type { RendererOptions } from "./terminal-renderer.js";

/** Exit codes of `turnloop -p`. */
export const EXIT = {
  endTurn: 0,
  error: 1,
  /** max_tokens, max_turn_requests, refusal, autopilot's cap, an empty answer: not finished. */
  incomplete: 2,
  /** The prompt alone is beyond the model's known context window: refused, nothing sent. */
  promptTooLarge: 3,
  usage: 64,
  cancelled: 130,
} as const;

/** Where `-p` writes and what it reads from the environment. */
export interface PromptIo {
  /** The run config: flags, environment and config files resolved. */
  config: RunConfig;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Whether stderr is a terminal (colour). */
  interactive: boolean;
  /** Whether stdin is a terminal: permission questions are asked there, else denied. */
  stdinIsTerminal: boolean;
  /** Whether stdout is a terminal: answers are rendered as Markdown. */
  stdoutIsTerminal?: boolean;
  /**
   * Piped input to attach to the prompt (or read as the prompt for `-p -`), taken only when there
   * is something to read (`process.stdin` is made on first use; prompt-input.ts); absent: not read.
   */
  stdin?: () => NodeJS.ReadableStream;
}

/**
 * Runs `turnloop -p`: opens or resumes the session, streams the answer, prints the summary.
 * Ctrl-C cancels the prompt cleanly; a second Ctrl-C exits at once.
 * @returns the process exit code ({@link EXIT}).
 */
export async function runPromptCommand(options: PromptOptions, io: PromptIo): Promise<number> {
  // The waiting line of text mode on a terminal: every write to stdout or stderr erases it first.
  const spinner =
    options.outputFormat === "text" && !options.quiet && io.interactive
      ? new Spinner(io.stderr)
      : undefined;
  if (spinner === undefined) {
    return runPrompt(options, io, undefined);
  }
  try {
    const guarded = { ...io, stdout: spinner.guard(io.stdout), stderr: spinner.guard(io.stderr) };
    return await runPrompt(options, guarded, spinner);
  } finally {
    spinner.stop();
  }
}

async function runPrompt(
  options: PromptOptions,
  io: PromptIo,
  spinner: Spinner | undefined,
): Promise<number> {
  const cwd = io.config.cwd.value;
  const started = await startedHost(options, io);
  if (typeof started === "number") {
    return started;
  }
  const { host, prompt } = started;
  const resuming = options.resume !== undefined || options.continue;
  // A new session needs a model before anything is written; a resumed one may use its own.
  const early = resuming ? undefined : host.resolveModel();
  if (early !== undefined && !early.ok) {
    io.stderr.write(`${early.message}\n`);
    return EXIT.usage;
  }
  const cwdGiven = io.config.cwd.source === "--cwd";
  const model = early?.configuration.id ?? "";
  const opened = await openPromptSession(host, options, { cwd, cwdGiven }, model);
  if (!opened.ok) {
    sayNotOpened(opened, options.outputFormat, io);
    return opened.kind === "usage" ? EXIT.usage : EXIT.error;
  }
  const { session } = opened;
  const configuration = await openedModel(host, session, early, resuming ? cwd : undefined, io);
  if (typeof configuration === "number") {
    return configuration;
  }
  const color = io.interactive && io.env.NO_COLOR === undefined;
  const faceCallbacks = {
    autopilot: io.config.autopilot.value,
    ...(io.stdinIsTerminal
      ? { ask: terminalPermission(process.stdin, io.stderr, () => session.cancel(), color) }
      : { noAskReason: noTerminalReason(host.configOf(session).permissionMode.value) }),
  };
  const output = promptOutput(options, io, session, await terminalExtras(options, io, spinner));
  try {
    // Subscribed first: building the settings may record `session.instructions_loaded`.
    await startMcp(session, io);
    const settings = host.agentSettings(session, configuration, faceCallbacks);
    return await runWithSignals(session, settings, prompt, output, io);
  } finally {
    output.unsubscribe();
    // After the prompt's own end: what closing met (the log's last sync failing) is one line.
    await host.close(session).catch((error: unknown) => {
      io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
    });
  }
}

/**
 * The session host and the prompt, or the exit code of what stops the run before a session is
 * opened: a prompt in the wrong place, a config the host refuses, a `--resume` id that names no
 * session (checked before stdin is read), no prompt.
 */
async function startedHost(
  options: PromptOptions,
  io: PromptIo,
): Promise<{ host: SessionHost; prompt: string } | number> {
  let problem = misplacedPrompt(options);
  let host: SessionHost | undefined;
  try {
    host =
      problem === undefined
        ? new SessionHost({ home: io.home, env: io.env, config: io.config })
        : undefined;
  } catch (error) {
    problem = errorMessage(error);
  }
  try {
    problem ??= host && (await unknownSession(host, options));
  } catch (error) {
    // The store could not be read (a database refusing the connection): said as --continue says it.
    io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
    return EXIT.error;
  }
  if (problem !== undefined || host === undefined) {
    io.stderr.write(`turnloop: ${problem}\n`);
    return EXIT.usage;
  }
  const prompt = await checkedPrompt(options, io);
  return typeof prompt === "number" ? prompt : { host, prompt };
}

/**
 * Says on `stderr` what the user should know of a session just opened: the damaged log lines it
 * repaired, and, for a resumed one (`runIn`, the folder turnloop was run in), that it works in its
 * own folder when that is another, and what that folder's untrusted project file holds back (its
 * config is the session's: host.ts `configOf`).
 */
function sayOpened(
  session: Session,
  runIn: string | undefined,
  host: SessionHost,
  stderr: PromptIo["stderr"],
): void {
  if (session.repairNotice !== undefined) {
    stderr.write(`turnloop: ${session.repairNotice}\n`);
  }
  if (runIn !== undefined && !sameFolder(session.cwd, runIn)) {
    stderr.write(`turnloop: resuming session ${session.id} in ${session.cwd}\n`);
    const held = host.configOf(session).heldWarning;
    if (held !== undefined && host.configOf(session) !== host.config) {
      stderr.write(`${warningLine(held)}\n`);
    }
  }
}

/**
 * Says what the user should know of the session just opened ({@link sayOpened}) and gives its
 * model: `early` for a new session, else a resumed one's (host.ts `modelOfResumed`), saying so
 * when that is another than it ran with; one that does not resolve closes the session (exit 64).
 */
async function openedModel(
  host: SessionHost,
  session: Session,
  early: ModelResolution | undefined,
  runIn: string | undefined,
  io: PromptIo,
): Promise<ModelConfiguration | number> {
  const resolved: ReturnType<SessionHost["modelOfResumed"]> = early ?? host.modelOfResumed(session);
  sayOpened(session, runIn, host, io.stderr);
  if (!resolved.ok) {
    await host.close(session);
    io.stderr.write(`${resolved.message}\n`);
    return EXIT.usage;
  }
  const { id } = resolved.configuration;
  if (resolved.previous !== undefined) {
    const why = resolved.unavailable === undefined ? "" : `, ${resolved.unavailable}`;
    io.stderr.write(
      `turnloop: session ${session.id} now uses ${id} (it ran with ${resolved.previous}${why})\n`,
    );
  }
  return resolved.configuration;
}

/**
 * Why `--resume`'s value is a prompt rather than a session id (`-p --resume "fix the tests"`:
 * `-p` then reads stdin), checked before stdin is read; undefined when it may be an id. An id has
 * no spaces (a uuid or its prefix), so a value with one names no session.
 */
function misplacedPrompt(options: PromptOptions): string | undefined {
  const given = options.resume;
  return given === undefined || !/\s/.test(given.trim())
    ? undefined
    : `no session ${JSON.stringify(given)}: --resume takes a session id; the prompt goes after -p (turnloop -p "…" --resume <id>)`;
}

/** The prompt's text, or the exit code of a usage error (a bad `--cwd`, no prompt) said on stderr. */
async function checkedPrompt(options: PromptOptions, io: PromptIo): Promise<string | number> {
  const cwdProblem = workingDirectoryProblem(io.config.cwd.value);
  if (cwdProblem !== undefined) {
    io.stderr.write(`turnloop: ${cwdProblem}\n`);
    return EXIT.usage;
  }
  const prompt = await promptText(options.prompt, io.stdin);
  if (!prompt.ok) {
    io.stderr.write(`turnloop: ${prompt.message}\n`);
    return EXIT.usage;
  }
  // Said once: a cut's warning names how much was read too.
  if (prompt.cut !== undefined) {
    io.stderr.write(`${stdinCutWarning(prompt.cut)}\n`);
  } else if (prompt.attached !== undefined) {
    io.stderr.write(`${stdinAttachedNotice(prompt.attached)}\n`);
  }
  if (isEmptyPrompt(prompt.text, 0)) {
    // A blank prompt (`-p "$UNSET"`) would pay for a request and store a session for nothing.
    io.stderr.write("turnloop: the prompt is empty: give it as -p TEXT, or pipe it in with -p -\n");
    return EXIT.usage;
  }
  return prompt.text;
}

/**
 * Starts the MCP servers of the config files and `--mcp-config` (a project's servers after the
 * trust question on a terminal); they join the session as they come up (bounded wait).
 */
async function startMcp(session: Session, io: PromptIo): Promise<void> {
  const mcp = await gatherWithTrust(
    {
      home: io.home,
      cwd: session.cwd,
      configFiles: io.config.mcpConfigs.map((file) => file.value),
    },
    io.stdinIsTerminal ? { input: process.stdin, output: io.stderr } : undefined,
  );
  reportGathered(mcp, (line) => io.stderr.write(`${line}\n`));
  const startupWaitMs = startupWaitFrom(io.env);
  await startMcpServers(session, mcp.servers, {
    env: io.env,
    ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
    ...(mcp.untrustedProject === undefined ? {} : { untrusted: mcp.untrustedProject }),
  });
}

/**
 * In text mode on a terminal: Markdown rendering when stdout is a terminal and colour is allowed
 * (`NO_COLOR` unset), a waiting line and tool lines wrapped to its width when stderr is one.
 */
async function terminalExtras(
  options: PromptOptions,
  io: PromptIo,
  spinner: Spinner | undefined,
): Promise<Pick<RendererOptions, "markdown" | "spinner" | "wrap">> {
  if (options.outputFormat !== "text" || options.quiet) {
    return {};
  }
  const color = io.env.NO_COLOR === undefined;
  const width = (io.stdout as { columns?: number }).columns ?? 80;
  return {
    ...(io.stdoutIsTerminal === true && color
      ? { markdown: await (await import("./markdown.js")).markdownRenderer(width) }
      : {}),
    ...(spinner === undefined ? {} : { spinner }),
    ...(io.interactive ? { wrap: await stderrWrap(io.stderr) } : {}),
  };
}

/** A line as rows of `stderr`'s width as it is now (text-wrap.ts); as it is where it has none. */
async function stderrWrap(stderr: NodeJS.WritableStream): Promise<(line: string) => string[]> {
  const { wrapLine } = await import("./text-wrap.js");
  return (line) => {
    const columns = (stderr as { columns?: number }).columns;
    return columns === undefined || !(columns > 0) ? [line] : wrapLine(line, columns);
  };
}

/**
 * How `-p`'s prompt stopped before its answer was complete, for stderr (before the summary line):
 * a limit or the model (event-notes.ts `stopNote`), or autopilot's cap; undefined otherwise.
 */
function stopLine(outcome: PromptOutcome, maxTurns: number): string | undefined {
  const autopilotCap =
    "stopped: autopilot reached --max-autopilot-continues and the task was not marked complete";
  return "stopReason" in outcome && outcome.autopilotStopped !== undefined
    ? autopilotCap
    : outcomeNote(outcome, maxTurns);
}

/**
 * Runs the prompt, stopped from outside as {@link watchPromptStops} says (Ctrl-C, SIGTERM,
 * SIGHUP, a closed stdout or stderr: the log ends cleanly instead of mid-turn).
 */
async function runWithSignals(
  session: Session,
  settings: SessionAgentSettings,
  prompt: string,
  output: PromptOutput,
  io: PromptIo,
): Promise<number> {
  const started = monotonicMilliseconds();
  const stops = watchPromptStops(session, io, EXIT.cancelled);
  try {
    const outcome = await session.prompt(settings, prompt);
    output.finish(outcome, monotonicMilliseconds() - started, stopLine(outcome, settings.maxTurns));
    if ("error" in outcome) {
      return outcome.promptTooLarge === undefined ? EXIT.error : EXIT.promptTooLarge;
    }
    switch (outcome.stopReason) {
      case "end_turn":
        // The warning line said it: an empty answer is not a finished one (README's exit codes).
        return outcome.autopilotStopped !== undefined || outcome.emptyAnswer === true
          ? EXIT.incomplete
          : EXIT.endTurn;
      case "cancelled":
        return stops.cancelledExitCode();
      case "max_tokens":
      case "max_turn_requests":
      case "refusal":
        return EXIT.incomplete;
    }
  } finally {
    stops.dispose();
  }
}
