import { resolve } from "node:path";
import { errorMessage } from "../events/errors.js";
import { isPermissionMode, PERMISSION_MODES } from "../permissions/permission-mode.js";
import type { FaceOptions } from "../session/face-options.js";
import { isSandboxPolicy, SANDBOX_POLICIES } from "../tools/sandbox/policy.js";
import {
  checkPermissionFlags,
  type ParsedValues,
  parseFlags,
  resumeWithoutId,
  trailingPrompt,
  UsageError,
  withDashPrompts,
  withPromptFromStdin,
} from "./argument-flags.js";
import {
  COMMANDS,
  commandHint,
  MCP_COMMANDS,
  parseErrorMessage,
  promptWithCommandProblem,
  unknownCommandMessage,
} from "./argument-suggestions.js";
import { numericFlag } from "./numeric-settings.js";
import { sessionsCommand, storeFlag } from "./sessions-arguments.js";
import {
  type CommandName,
  GROUP_USAGE,
  MCP_ACTIONS,
  SESSIONS_COMPACT,
  unexpectedArguments,
  unreadFlagsProblem,
} from "./subcommands.js";
import { type HelpTopic, helpTopic } from "./usage.js";

/** Parsed command line of `turnloop`. */
export type Command =
  /** `--help`; `topic` when it follows a command (`turnloop mcp --help`): that command's usage. */
  | { kind: "help"; topic?: HelpTopic }
  | { kind: "version" }
  | { kind: "prompt"; options: PromptOptions }
  /** `turnloop [prompt]` with no `-p`: the interactive terminal session. */
  | { kind: "interactive"; options: InteractiveOptions }
  /** `turnloop acp`: an ACP v1 agent on stdio. */
  | { kind: "acp"; options: FaceOptions }
  /** `turnloop --headless --stdio|--port N` and `turnloop serve`: the SDK's JSON-RPC server. */
  | {
      kind: "server";
      options: FaceOptions & { transport: { stdio: true } | { port: number; host?: string } };
    }
  /** `turnloop config`: the settings in force and where each came from. */
  | { kind: "config"; options: FaceOptions; json: boolean }
  | { kind: "sessions-list"; json: boolean; limit?: number; store?: string }
  | { kind: "sessions-show"; sessionId: string; store?: string }
  | { kind: "sessions-delete"; sessionId: string; store?: string }
  /** `turnloop sessions export <id> --format jsonl [--out F]`: the stored lines, exactly. */
  | { kind: "sessions-export-log"; sessionId: string; out?: string; store?: string }
  /** `turnloop sessions import <file | ->`: a session's JSONL into the store, exactly. */
  | { kind: "sessions-import"; file: string; store?: string }
  /** `turnloop sessions view <id> [--out F] [--no-open]`: the HTML timeline of a session. */
  | { kind: "sessions-view"; sessionId: string; out?: string; open: boolean; store?: string }
  /** `turnloop sessions export <id> --format html|markdown|json [--out F]`. */
  | {
      kind: "sessions-export";
      sessionId: string;
      format: "html" | "markdown" | "json";
      out?: string;
      store?: string;
    }
  /**
   * `turnloop mcp list`: the configured MCP servers, started to show their state and tools; the
   * options give the cwd, `--mcp-config` and `--ignore-config-errors`.
   */
  | { kind: "mcp-list"; options: FaceOptions; json: boolean }
  /** `turnloop mcp trust`: allow this project's `.mcp.json` servers. */
  | { kind: "mcp-trust"; cwd: string }
  | { kind: "mcp-untrust"; cwd: string }
  /** `turnloop sessions compact <id> [instructions]`: compacts a session's history now. */
  | { kind: "sessions-compact"; sessionId: string; instructions: string; options: FaceOptions };

export type { FaceOptions };

/** Options of `turnloop -p`. */
export interface PromptOptions extends FaceOptions {
  prompt: string;
  resume?: string;
  continue: boolean;
  /** `json`: one result object at the end; `stream-json`: every event, then the result. */
  outputFormat: "text" | "json" | "stream-json";
  /** `--quiet`: print only the final answer. */
  quiet: boolean;
  /** `--verbose`: whole outputs of failed commands. */
  verbose: boolean;
}

/** Options of `turnloop` (the interactive session). */
export interface InteractiveOptions extends FaceOptions {
  /** Sent as the first prompt once the session is open. */
  prompt?: string;
  /** `--resume <id>`: that session; `--resume` alone: a picker of this folder's sessions. */
  resume?: string | { pick: true };
  continue: boolean;
}

export { USAGE, usageOf } from "./usage.js";

/** Thrown for a command line we cannot run (defined in argument-flags.ts). */
export { UsageError };

/**
 * Parses `given` (the arguments without `node` and the script).
 * @throws UsageError with a one-line explanation.
 */
export function parseCommand(given: readonly string[], cwd: string): Command {
  const argv = withDashPrompts(given);
  let parsed: ReturnType<typeof parseFlags>;
  const args = withPromptFromStdin(argv);
  try {
    parsed = parseFlags(args);
  } catch (error) {
    throw new UsageError(parseErrorMessage(error, args) ?? errorMessage(error));
  }
  const { values, positionals } = trailingPrompt(parsed, argv, args);
  const pick = resumeWithoutId(argv);
  if (values.help) {
    const topic = helpTopic(positionals[0]);
    return topic === undefined ? { kind: "help" } : { kind: "help", topic };
  }
  if (values.version) {
    return { kind: "version" };
  }
  const mixed =
    values.prompt === undefined
      ? undefined
      : promptWithCommandProblem(values.prompt, positionals, values.headless === true);
  if (mixed !== undefined) {
    throw new UsageError(mixed);
  }
  const named = namedCommand(values, positionals, cwd, pick);
  if (named !== undefined) {
    return named;
  }
  if ((values.resume !== undefined || pick) && values.continue) {
    throw new UsageError("use either --resume or --continue, not both");
  }
  if (values.prompt === undefined) {
    // A bare prompt (`turnloop "fix the tests"`) opens the interactive session with it (issue
    // 15); a command given an extra word, or a word close to a command (`turnloop mpc list`),
    // is a usage error with its hint, not a first prompt.
    const first = positionals[0];
    const typo = first === undefined || /\s/.test(first) ? "" : commandHint(first, COMMANDS);
    if (typo !== "") {
      throw new UsageError(unknownCommandMessage(positionals, typo));
    }
    checkFlagsRead("interactive", values, pick);
    return interactiveCommand(values, positionals, cwd, pick);
  }
  return promptCommand(values, values.prompt, positionals, cwd, pick);
}

/**
 * The command a first word names (`sessions …`, `config`, `mcp …`, `acp`, `serve`/`--headless`),
 * or undefined when `positionals` name none of them (a prompt or the interactive session).
 * @throws UsageError as {@link parseCommand}.
 */
function namedCommand(
  values: ReturnType<typeof parseFlags>["values"],
  positionals: string[],
  cwd: string,
  pick: boolean,
): Command | undefined {
  if (positionals[0] === "sessions") {
    if (positionals[1] === "compact" && positionals[2] !== undefined) {
      if (positionals[2].trim() === "") {
        throw new UsageError(
          `sessions compact needs a session id, not "${positionals[2]}" (usage: ${SESSIONS_COMPACT.usage})`,
        );
      }
      checkFlagsRead("sessions compact", values, pick);
      return {
        kind: "sessions-compact",
        sessionId: positionals[2],
        instructions: positionals.slice(3).join(" "),
        options: faceOptions(values, cwd),
      };
    }
    return sessionsCommand(positionals.slice(1), values);
  }
  if (positionals[0] === "config" && positionals.length === 1) {
    checkFlagsRead("config", values, pick);
    return { kind: "config", options: faceOptions(values, cwd), json: values.json === true };
  }
  if (positionals[0] === "mcp") {
    return mcpCommand(positionals.slice(1), values, cwd);
  }
  if (positionals[0] === "acp" && positionals.length === 1) {
    checkFlagsRead("acp", values, pick);
    return { kind: "acp", options: faceOptions(values, cwd) };
  }
  if (values.headless || (positionals[0] === "serve" && positionals.length === 1)) {
    checkFlagsRead("serve", values, pick);
    return {
      kind: "server",
      options: { ...faceOptions(values, cwd), transport: serverTransport(values) },
    };
  }
  return undefined;
}

/**
 * @throws UsageError naming the flags of `values` (and a `--resume` without an id, `pick`) that
 * `command` does not read (subcommands.ts, FLAG_READERS).
 */
function checkFlagsRead(command: CommandName, values: ParsedValues, pick: boolean): void {
  const problem = unreadFlagsProblem(command, pick ? { ...values, resume: "" } : values);
  if (problem !== undefined) {
    throw new UsageError(problem);
  }
}

/** `-p PROMPT`: one prompt, then exit. @throws UsageError for flags -p does not combine with. */
function promptCommand(
  values: ParsedValues,
  prompt: string,
  positionals: readonly string[],
  cwd: string,
  pick: boolean,
): Command {
  if (positionals.length > 0) {
    throw new UsageError(
      unknownCommandMessage(positionals, "; the prompt is -p's one argument: quote it whole"),
    );
  }
  if (pick) {
    throw new UsageError(
      '-p --resume needs a session id (turnloop sessions lists them): turnloop -p "…" --resume <id>; the picker of sessions is the interactive turnloop --resume',
    );
  }
  checkFlagsRead("-p", values, false);
  if (values.resume !== undefined && values.continue) {
    throw new UsageError("use either --resume or --continue, not both");
  }
  const outputFormat = values["output-format"] ?? "text";
  if (outputFormat !== "text" && outputFormat !== "json" && outputFormat !== "stream-json") {
    throw new UsageError(
      `--output-format must be text, json or stream-json, not "${outputFormat}"`,
    );
  }
  if (values.quiet && values.verbose) {
    throw new UsageError("use either --quiet or --verbose, not both");
  }
  return {
    kind: "prompt",
    options: {
      ...faceOptions(values, cwd),
      prompt,
      ...(values.resume === undefined ? {} : { resume: values.resume }),
      continue: values.continue === true,
      outputFormat,
      quiet: values.quiet === true,
      verbose: values.verbose === true,
    },
  };
}

/**
 * The face's options of `values`; a flag's relative path is made absolute against `cwd` (where
 * turnloop started), as every command-line tool does, never against `--cwd` (trial 42 F5).
 */
function faceOptions(values: ParsedValues, cwd: string): FaceOptions {
  const fromShell = (path: string) => resolve(cwd, path);
  return {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values["base-url"] === undefined ? {} : { baseUrl: values["base-url"] }),
    ...(values.store === undefined ? {} : { store: storeFlag(values.store) }),
    maxTurns: numericFlag("max-turns", values["max-turns"], 100),
    autopilot: values.autopilot === true,
    maxAutopilotContinues: numericFlag(
      "max-autopilot-continues",
      values["max-autopilot-continues"],
      5,
    ),
    allowAllTools: values["allow-all-tools"] === true || values.yolo === true,
    ...sandboxOptions(values),
    allowTools: values["allow-tool"] ?? [],
    denyTools: values["deny-tool"] ?? [],
    addDirs: (values["add-dir"] ?? []).map(fromShell),
    cwd: values.cwd ?? cwd,
    noInstructions: values["no-instructions"] === true,
    ...(values["ignore-config-errors"] === true ? { ignoreConfigErrors: true } : {}),
    flagsGiven: Object.keys(values),
    ...(values["append-system-prompt"] === undefined
      ? {}
      : { appendSystemPrompt: values["append-system-prompt"] }),
    ...(values["system-prompt-file"] === undefined
      ? {}
      : { systemPromptFile: fromShell(values["system-prompt-file"]) }),
    mcpConfigs: (values["mcp-config"] ?? []).map(fromShell),
    ...(values["context-window"] === undefined
      ? {}
      : { contextWindow: numericFlag("context-window", values["context-window"], 0) }),
  };
}

function mcpCommand(rest: readonly string[], values: ParsedValues, cwd: string): Command {
  const directory = values.cwd ?? cwd;
  const [action, ...words] = rest;
  if (action === "list" || action === "trust" || action === "untrust") {
    const problem = unexpectedArguments(`mcp ${action}`, { words, values }, MCP_ACTIONS[action]);
    if (problem !== undefined) {
      throw new UsageError(problem);
    }
  }
  if (action === "list") {
    return { kind: "mcp-list", options: faceOptions(values, cwd), json: values.json === true };
  }
  if (action === "trust" || action === "untrust") {
    return { kind: `mcp-${action}`, cwd: directory };
  }
  const given = rest[0];
  if (given !== undefined && !MCP_COMMANDS.includes(given)) {
    throw new UsageError(
      `unknown mcp command "${given}"${commandHint(given, MCP_COMMANDS)} (usage: ${GROUP_USAGE.mcp})`,
    );
  }
  throw new UsageError(`mcp needs a command (usage: ${GROUP_USAGE.mcp})`);
}

/**
 * `--stdio`, or `--port N`; a bare `--headless` listens on a free TCP port, as the Copilot CLI
 * does (its SDK's TCP mode relies on it); `turnloop serve` alone uses stdio.
 */
function serverTransport(values: ParsedValues): { stdio: true } | { port: number; host?: string } {
  const transport = tcpOrStdio(values);
  if (values.host === undefined) {
    return transport;
  }
  if ("stdio" in transport) {
    throw new UsageError("--host needs --port N (or --headless without --stdio)");
  }
  return { ...transport, host: values.host };
}

function tcpOrStdio(values: ParsedValues): { stdio: true } | { port: number } {
  if (values.stdio && values.port !== undefined) {
    throw new UsageError("use either --stdio or --port N, not both");
  }
  if (values.stdio) {
    return { stdio: true };
  }
  if (values.port === undefined && values.headless) {
    return { port: 0 };
  }
  if (values.port !== undefined) {
    return { port: numericFlag("port", values.port, 0) };
  }
  return { stdio: true };
}

function interactiveCommand(
  values: ParsedValues,
  positionals: readonly string[],
  cwd: string,
  pick: boolean,
): Command {
  const prompt = positionals.join(" ").trim();
  const resume = pick ? { pick: true as const } : values.resume;
  return {
    kind: "interactive",
    options: {
      ...faceOptions(values, cwd),
      ...(prompt === "" ? {} : { prompt }),
      ...(resume === undefined ? {} : { resume }),
      continue: values.continue === true,
    },
  };
}

/**
 * `--permission-mode`, `--sandbox` and `--sandbox-network`.
 * @throws UsageError for a bad name, or flags that contradict each other (argument-flags.ts).
 */
function sandboxOptions(
  values: ParsedValues,
): Pick<FaceOptions, "permissionMode" | "sandbox" | "sandboxNetwork"> {
  const mode = values["permission-mode"];
  if (mode !== undefined && !isPermissionMode(mode)) {
    throw new UsageError(`--permission-mode must be ${PERMISSION_MODES.join(", ")}, not "${mode}"`);
  }
  const policy = values.sandbox;
  if (policy !== undefined && !isSandboxPolicy(policy)) {
    throw new UsageError(`--sandbox must be ${SANDBOX_POLICIES.join(", ")}, not "${policy}"`);
  }
  checkPermissionFlags(values, mode, policy);
  return {
    ...(mode === undefined ? {} : { permissionMode: mode }),
    ...(policy === undefined ? {} : { sandbox: policy }),
    ...(values["sandbox-network"] === true ? { sandboxNetwork: true } : {}),
  };
}
