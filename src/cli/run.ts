/**
 * Every command but a lone `--version` (main.ts answers that one without loading this module):
 * parses the command line and runs the command, loading its modules when it needs them.
 */

import { warningLine } from "../events/errors.js";
import type { RunConfig } from "../session/run-config.js";
import {
  type Command,
  type FaceOptions,
  parseCommand,
  USAGE,
  UsageError,
  usageOf,
} from "./arguments.js";
import { homeInProjectWarning, homeVariableProblem } from "./home-variable.js";
import { numericVariableProblem } from "./numeric-settings.js";

// The AI SDK prints warnings with console.warn; stdout and stderr belong to us.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * Runs the `turnloop` command given by `argv` (the arguments after the script); `version` is
 * printed for `--version`. Heavy modules load only for the command that needs them.
 * @returns the process exit code (64 for a usage error).
 */
export async function runCommand(argv: readonly string[], version: string): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv, process.cwd());
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`turnloop: ${error.message}\n`);
      return 64;
    }
    throw error;
  }
  // A numeric variable out of its range (numeric-settings.ts, NUMERIC_VARIABLES) is a usage error
  // before anything runs; `acp` reports it on every session request instead (runAcpFace).
  const variable = numericVariableProblem(process.env, command.kind);
  if (variable !== undefined && command.kind !== "acp") {
    process.stderr.write(`turnloop: ${variable.message}\n`);
    return 64;
  }
  // So is a TURNLOOP_HOME no store can be kept at (home-variable.ts), for every command that
  // reads or writes one; `acp` reports it on every session request too.
  const unread = command.kind === "help" || command.kind === "version" || command.kind === "acp";
  const home = unread ? undefined : homeVariableProblem(process.env);
  if (home !== undefined) {
    process.stderr.write(`turnloop: ${home}\n`);
    return 64;
  }
  switch (command.kind) {
    case "help": {
      // Wrapped at a terminal's width, and at 80 columns into a pipe or a file.
      const { wrapText } = await import("./text-wrap.js");
      const text = command.topic === undefined ? USAGE : usageOf(command.topic);
      process.stdout.write(`${wrapText(text, process.stdout.columns ?? 80)}\n`);
      return 0;
    }
    case "version":
      process.stdout.write(`${version}\n`);
      return 0;
    case "prompt":
    case "interactive":
    case "acp":
    case "server":
    case "sessions-compact":
      return runFace(command);
    default:
      return runSessionsTool(command);
  }
}

/** The commands that run a session under a run config (a bad config file exits 64). */
type FaceCommand = Extract<
  Command,
  { kind: "prompt" | "interactive" | "acp" | "server" | "sessions-compact" }
>;

/** Runs a face: its run config and its module load side by side; a bad config exits 64. */
async function runFace(command: FaceCommand): Promise<number> {
  // -p asks on stderr (stdout carries the answer), the interactive face on its screen.
  const askOn =
    command.kind === "prompt"
      ? process.stderr
      : command.kind === "interactive"
        ? process.stdout
        : undefined;
  // acp's TURNLOOP_HOME is checked here (the other faces' in runCommand): before its config
  // files are read, which a home that is a file fails too.
  const home = command.kind === "acp" ? homeVariableProblem(process.env) : undefined;
  if (home !== undefined) {
    process.stderr.write(`turnloop: ${home}\n`);
  }
  const configuring =
    home === undefined
      ? configure(command.options, askOn, opensOtherFolders(command))
      : Promise.resolve({ ok: false as const, message: home });
  // Handled below, after the module loads; a rejection meanwhile must not count as unhandled.
  configuring.catch(() => undefined);
  if (command.kind === "acp") {
    return runAcpFace(configuring);
  }
  const run = await faceRunner(command);
  const configured = await configuring;
  return configured.ok ? run(configured.config, configured.env) : 64;
}

/**
 * `turnloop acp`: stdin's first line is read beside the run config, and a valid `initialize` is
 * answered before the ACP SDK loads (src/acp/start.ts). A bad config, a numeric variable out of
 * its range (NUMERIC_VARIABLES) or an unusable TURNLOOP_HOME still serves the protocol: an editor shows only "agent crashed"
 * for an agent that exits before `initialize`.
 */
async function runAcpFace(configuring: ReturnType<typeof configure>): Promise<number> {
  const { startAcp } = await import("../acp/start.js");
  const start = startAcp();
  const configured = await configuring;
  if (!configured.ok) {
    return start.runWithoutConfig(configured.message, process.env);
  }
  const variable = numericVariableProblem(process.env, "acp");
  if (variable === undefined) {
    return start.run(configured.config, configured.env);
  }
  process.stderr.write(`turnloop: ${variable.message}\n`);
  // Left out, so the bad value is reported once and the framing uses its default limit.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== variable.name),
  );
  return start.runWithoutConfig(variable.message, env);
}

/** Loads `command`'s face and gives the call that runs it under a run config. */
async function faceRunner(
  command: Exclude<FaceCommand, { kind: "acp" }>,
): Promise<(config: RunConfig, env: NodeJS.ProcessEnv) => Promise<number>> {
  // Not stdin: `process.stdin` makes its stream on first use, which `-p` needs only to read a pipe.
  const { stdout, stderr } = process;
  switch (command.kind) {
    case "prompt": {
      const [{ runPromptCommand }, { stdinIsTerminal }, { turnloopHome }] = await Promise.all([
        import("./prompt-command.js"),
        import("./prompt-input.js"),
        import("../session/paths.js"),
      ]);
      return (config, env) =>
        runPromptCommand(command.options, {
          config,
          stdout,
          stderr,
          env,
          home: turnloopHome(process.env),
          interactive: stderr.isTTY === true,
          // Not `process.stdin.isTTY`: that makes stdin's stream, which `-p` reads only if piped.
          stdinIsTerminal: stdinIsTerminal(),
          stdin: () => process.stdin,
          stdoutIsTerminal: stdout.isTTY === true,
        });
    }
    case "interactive": {
      const [{ runInteractiveCommand }, { turnloopHome }] = await Promise.all([
        import("./interactive/run.js"),
        import("../session/paths.js"),
      ]);
      return (config, env) =>
        runInteractiveCommand(command.options, {
          config,
          stdin: process.stdin,
          stdout,
          stderr,
          env,
          home: turnloopHome(process.env),
        });
    }
    case "server": {
      const { runServerCommand } = await import("../server/main.js");
      return (config, env) => runServerCommand(command.options.transport, config, env);
    }
    case "sessions-compact": {
      const { runCompactCommand } = await import("./compact-command.js");
      return (config, env) => runCompactCommand(command, { config, stdout, stderr, env });
    }
  }
}

/** `config`, `sessions …` and `mcp …`: commands that read or change what is stored. */
async function runSessionsTool(
  command: Exclude<Command, FaceCommand | { kind: "help" | "version" }>,
): Promise<number> {
  switch (command.kind) {
    case "config": {
      const { runConfigCommand } = await import("./config-command.js");
      return runConfigCommand(command.options, command.json, process.env, process.stdout);
    }
    case "sessions-list":
    case "sessions-show":
    case "sessions-delete": {
      const { runSessionsCommand } = await import("./sessions-command.js");
      return runSessionsCommand(command, { stdout: process.stdout, stderr: process.stderr });
    }
    case "sessions-view":
    case "sessions-export": {
      const { runSessionsView, runSessionsExport } = await import("./session-view/command.js");
      const io = {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
        cwd: process.cwd(),
        platform: process.platform,
      };
      return command.kind === "sessions-view"
        ? runSessionsView(command, io)
        : runSessionsExport(command, io);
    }
    case "sessions-export-log":
    case "sessions-import": {
      const { runSessionsTransfer } = await import("./sessions-transfer.js");
      return runSessionsTransfer(command, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
        cwd: process.cwd(),
      });
    }
    case "mcp-list":
    case "mcp-trust":
    case "mcp-untrust": {
      const { runMcpCommand } = await import("./mcp-command.js");
      return runMcpCommand(command, { stdout: process.stdout, stderr: process.stderr });
    }
  }
}

/**
 * Whether `command` may open sessions of other folders than the current one, each with its own
 * folder's project file (session-runs.ts `in`): `"resumed"` for `-p --resume <id>` and `turnloop
 * --resume <id>` (the session's folder may be another), `"served"` for `turnloop acp` and the SDK
 * server (an editor or app names each session's folder); `undefined` for any other.
 */
function opensOtherFolders(command: FaceCommand): "resumed" | "served" | undefined {
  if (command.kind === "acp" || command.kind === "server") {
    return "served";
  }
  return (command.kind === "prompt" || command.kind === "interactive") &&
    typeof command.options.resume === "string"
    ? "resumed"
    : undefined;
}

/**
 * Resolves a face's run config; reports a bad file and unknown keys on stderr. With `askOn` (the
 * stream a face of the user's terminal asks on), keys an untrusted project holds are asked about
 * first when stdin and that stream are terminals (project-trust-question.ts); a yes resolves the
 * config again, trusted. `otherFolders` ({@link opensOtherFolders}): a problem of the current
 * folder's project files does not stop the face (its sessions may work in other folders); the
 * config is resolved without them (a served face warns of the problem), and a session of this
 * folder meets it when it is opened (session-runs.ts `in`).
 */
async function configure(
  options: FaceOptions,
  askOn?: NodeJS.WriteStream,
  otherFolders?: "resumed" | "served",
): Promise<
  { ok: true; config: RunConfig; env: NodeJS.ProcessEnv } | { ok: false; message: string }
> {
  const { configuredFace } = await import("../session/face-config.js");
  let configured = await configuredFace(options, process.env);
  if (!configured.ok && otherFolders) {
    const withoutProject = await configuredFace(options, process.env, null);
    if (withoutProject.ok) {
      // A server goes on serving other folders: say why this one's sessions will be refused.
      const problem = `${configured.message}; sessions in ${withoutProject.config.cwd.value} are refused until it is fixed`;
      const warnings = otherFolders === "served" ? [problem] : [];
      configured = { ...withoutProject, warnings: [...withoutProject.warnings, ...warnings] };
    }
  }
  if (
    configured.ok &&
    configured.held !== undefined &&
    askOn?.isTTY === true &&
    process.stdin.isTTY === true
  ) {
    const [{ askProjectTrust, declinedLine }, { turnloopHome }] = await Promise.all([
      import("./project-trust-question.js"),
      import("../session/paths.js"),
    ]);
    const project = { home: turnloopHome(process.env), cwd: configured.config.cwd.value };
    const terminal = { input: process.stdin, output: askOn };
    if (await askProjectTrust(configured.held, project, terminal)) {
      configured = await configuredFace(options, process.env);
    } else if (configured.ok) {
      // The question listed the held keys: the no is said in one short line, not the warning.
      const { warnings, config } = configured;
      const said = declinedLine(configured.held);
      const replaced = warnings.map((line) => (line === config.heldWarning ? said : line));
      configured = { ...configured, warnings: replaced };
    }
  }
  if (!configured.ok) {
    process.stderr.write(`turnloop: ${configured.message}\n`);
    return { ok: false, message: configured.message };
  }
  // A sandbox asked for where bubblewrap cannot run is an error, never silently unconfined.
  const sandbox = await sandboxCheck(configured.config);
  if (sandbox !== undefined && "error" in sandbox) {
    process.stderr.write(`turnloop: ${sandbox.error}\n`);
    return { ok: false, message: sandbox.error };
  }
  // A TURNLOOP_HOME inside the project: warned of, not refused (home-variable.ts).
  const home = await homeInProjectWarning(process.env, configured.config.cwd.value);
  const warnings = [
    ...configured.warnings,
    ...(sandbox === undefined ? [] : [sandbox.warning]),
    ...(home === undefined ? [] : [home]),
  ];
  await writeWrapped(warnings.map(warningLine), process.stderr);
  return configured;
}

/**
 * Writes `lines` on `stream`, each wrapped between words to its width when it is a terminal
 * (text-wrap.ts, loaded only then), which would otherwise break them mid-word.
 */
async function writeWrapped(lines: readonly string[], stream: NodeJS.WriteStream): Promise<void> {
  if (lines.length === 0) {
    return;
  }
  const width = stream.isTTY === true ? stream.columns : undefined;
  const wrap = width === undefined ? undefined : (await import("./text-wrap.js")).wrapLine;
  for (const line of lines) {
    stream.write(
      `${wrap === undefined || width === undefined ? line : wrap(line, width).join("\n")}\n`,
    );
  }
}

/** What bubblewrap's absence means for `config` (sandbox-setup.ts), loaded only when it matters. */
async function sandboxCheck(config: RunConfig) {
  const { sandboxWanted } = await import("../session/run-config.js");
  if (!sandboxWanted(config)) {
    return undefined;
  }
  const { sandboxProblem } = await import("../session/sandbox-setup.js");
  return sandboxProblem(config, process.env);
}
