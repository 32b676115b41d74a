/**
 * Slash commands (`/model`, `/mode`, `/usage` …): one definition per command, below the faces, so
 * the interactive terminal runs them and ACP can advertise the same set in
 * `available_commands_update` (ACP v1 slash-commands: `name`, `description`, `input.hint`).
 * A command only reads and changes what the {@link SessionHost} offers; what the face does with
 * the outcome (print, switch session, exit) is the face's.
 */

import { errorMessage } from "../events/errors.js";
import type { ModelConfiguration } from "../llm/models.js";
import { age } from "./age.js";
import type { SessionHost } from "./host.js";
import { sameFolder } from "./paths.js";
import { PERMISSIONS_COMMAND } from "./permissions-command.js";
import { describeAutoMode } from "./sandbox-setup.js";
import type { Session } from "./session.js";
import { SessionLockedError, type SessionSummary, summaryLine } from "./session-store.js";
import { compactCount, costText, turnDetails, UsageTotals } from "./usage-totals.js";

/**
 * How tool calls are allowed (the same three modes ACP offers, see `acp/modes.ts`): `ask` asks
 * before edits and commands, `auto` runs every tool, `autopilot` also keeps going until the model
 * calls `task_complete`.
 */
export type SessionMode = "ask" | "auto" | "autopilot";

/**
 * The session modes with what each does in this run: `auto` is described by `auto` (what runs
 * without asking there, sandbox-setup.ts `describeAutoMode`).
 */
export function sessionModes(auto: string): readonly { id: SessionMode; description: string }[] {
  return [
    {
      id: "ask",
      description: "reads inside the workspace run freely; edits and commands ask first",
    },
    { id: "auto", description: auto },
    { id: "autopilot", description: "works on its own until the task is done; asks as auto does" },
  ];
}

/** What a command sees: the host, the open session, its model and mode, and the text after the name. */
export interface CommandContext {
  host: SessionHost;
  session: Session;
  /** The model in use: its id (it may not run here: a reopened session's, until switched). */
  model: Pick<ModelConfiguration, "id">;
  mode: SessionMode;
  /** The rest of the line after `/name`, trimmed (`""` when none). */
  argument: string;
}

/**
 * What the face should do after a command:
 * - `text`: show `text` (an error reads as one, with `error: true`);
 * - `model` / `mode`: use this model / mode for the next prompts, show `text`;
 * - `open`: `session` is now open (and locked) through the host: show it instead of the current
 *   one, which the face closes;
 * - `choose-session`: let the user pick one of `sessions` (then run `/resume <id>`);
 * - `compact`: compact the history now with `instructions` (a model call: the face runs it as a
 *   turn of its own, with its cancel signal, through `Session.compact`);
 * - `exit`: end the face.
 */
export type CommandOutcome =
  | { kind: "text"; text: string; error?: true }
  | { kind: "model"; model: ModelConfiguration; text: string }
  | { kind: "mode"; mode: SessionMode; text: string }
  | { kind: "open"; session: Session; text: string }
  | { kind: "choose-session"; sessions: SessionSummary[] }
  | { kind: "compact"; instructions: string }
  | { kind: "exit" };

export interface CommandDefinition {
  /** Without the slash. */
  name: string;
  /** Other agents' names for it, taken as it and listed by `/help` (`/clear`, `/quit`). */
  aliases?: readonly string[];
  description: string;
  /** ACP `input.hint`: what to type after the name; absent when the command takes nothing. */
  input?: { hint: string };
  /** Only a face that owns the process and the screen can run it (`/new`, `/resume`, `/exit`). */
  terminalOnly: boolean;
  /** Never throws: failures are `text` outcomes with `error: true`. */
  run(context: CommandContext): Promise<CommandOutcome>;
}

const failed = (text: string): CommandOutcome => ({ kind: "text", text, error: true });

/**
 * `definition` refusing an argument when it takes none (no `input`): `/usage extra` says so
 * rather than running as `/usage`, on every face.
 */
function takingWhatItSays(definition: CommandDefinition): CommandDefinition {
  if (definition.input !== undefined) {
    return definition;
  }
  return {
    ...definition,
    run: async (context) =>
      context.argument === ""
        ? definition.run(context)
        : failed(
            `/${definition.name} takes no argument (not "${context.argument}"); type /${definition.name} alone`,
          ),
  };
}

/** Every slash command, in the order `/help` lists them. */
export const COMMANDS: readonly CommandDefinition[] = (
  [
    {
      name: "help",
      description: "List the commands",
      terminalOnly: false,
      run: async () => ({ kind: "text", text: helpText() }),
    },
    {
      name: "model",
      description: "Show the model, or switch to another one for the next prompts",
      input: { hint: "provider:model (optional)" },
      terminalOnly: false,
      run: async ({ host, session, model, argument }) => {
        if (argument === "") {
          const choices = host.modelChoices(model.id, session.start.model);
          return { kind: "text", text: `model: ${model.id}\nchoices: ${choices.join(", ")}` };
        }
        // A bare name is taken on the provider of the model in use (host-models.ts withProvider).
        const resolved = host.resolveModel(argument, model.id);
        if (!resolved.ok) {
          return failed(resolved.message.replace(/^turnloop: /, ""));
        }
        const { configuration } = resolved;
        return { kind: "model", model: configuration, text: `model: ${configuration.id}` };
      },
    },
    {
      name: "mode",
      description: "Show the mode, or switch: ask, auto or autopilot",
      input: { hint: "ask | auto | autopilot" },
      terminalOnly: false,
      run: async ({ host, session, mode, argument }) => {
        const modes = sessionModes(describeAutoMode(host.configOf(session)));
        const chosen = modes.find((entry) => entry.id === argument);
        if (argument === "") {
          const lines = modes.map(
            (entry) => `${entry.id === mode ? "*" : " "} ${entry.id}: ${entry.description}`,
          );
          return { kind: "text", text: lines.join("\n") };
        }
        if (chosen === undefined) {
          return failed(`unknown mode "${argument}"; choose ask, auto or autopilot`);
        }
        return {
          kind: "mode",
          mode: chosen.id,
          text: `mode: ${chosen.id} (${chosen.description})`,
        };
      },
    },
    {
      name: "usage",
      description: "Tokens and cost of this session so far",
      terminalOnly: false,
      run: async ({ host, session }) => {
        try {
          const { events } = await host.readEvents(session.id);
          return { kind: "text", text: usageText(UsageTotals.of(events)) };
        } catch (error) {
          return failed(`cannot read the session's log: ${errorMessage(error)}`);
        }
      },
    },
    {
      name: "sessions",
      description: "List the sessions of this folder, newest first",
      terminalOnly: false,
      run: async ({ host, session }) => {
        try {
          const sessions = await host.list({ cwd: session.cwd });
          return { kind: "text", text: sessionsText(sessions, session.id) };
        } catch (error) {
          return failed(`cannot list sessions: ${errorMessage(error)}`);
        }
      },
    },
    {
      name: "compact",
      description:
        "Summarise the older conversation to free context; recent turns stay as they are",
      input: { hint: "what the summary should focus on (optional)" },
      terminalOnly: false,
      run: async ({ argument }) => ({ kind: "compact", instructions: argument }),
    },
    {
      name: "mcp",
      description: "The session's MCP servers: state and tool count",
      terminalOnly: false,
      run: async ({ session }) => {
        // Servers still being gathered are listed once they start ("starting" until they answer).
        await session.mcpOpening;
        await session.mcp?.check(); // an HTTP server that stopped is known only by asking it
        const servers = session.mcp?.list() ?? [];
        const waiting = session.mcpWaitingForTrust;
        if (servers.length === 0 && waiting === undefined) {
          return { kind: "text", text: "no MCP servers (see turnloop mcp list and --mcp-config)" };
        }
        const lines = servers.map(
          (server) =>
            `${server.name} (${server.type}): ${server.state === "pending" ? "starting" : server.state}, ${server.toolCount} tool${server.toolCount === 1 ? "" : "s"}${server.error === undefined ? "" : ` — ${server.error}`}`,
        );
        if (waiting !== undefined) {
          lines.push(
            ...waiting.names.map(
              (name) =>
                `${name}: untrusted (from ${waiting.sources?.[name] ?? waiting.path}), not started`,
            ),
            "to allow this project's servers: run turnloop mcp trust in this folder, then /new or reopen the session",
          );
        }
        return { kind: "text", text: lines.join("\n") };
      },
    },
    PERMISSIONS_COMMAND,
    {
      name: "new",
      aliases: ["clear"], // Claude Code's name; Codex's is /new
      description: "Start a new session in this folder",
      terminalOnly: true,
      run: async ({ host, session, model }) => newSession(host, session, model),
    },
    {
      name: "resume",
      description: "Reopen a session of this folder (a picker without an id)",
      input: { hint: "session id or prefix (optional)" },
      terminalOnly: true,
      run: async ({ host, session, argument }) => resumeCommand(host, session, argument),
    },
    {
      name: "exit",
      aliases: ["quit"], // Codex's name; Claude Code's is /exit
      description: "Close the session and quit",
      terminalOnly: true,
      run: async () => ({ kind: "exit" }),
    },
  ] satisfies CommandDefinition[]
).map(takingWhatItSays);

/** A line that starts with `/`: the command it names (if known) and its argument. */
export interface ParsedCommand {
  name: string;
  argument: string;
  definition: CommandDefinition | undefined;
}

/** Parses `/name rest…`; `undefined` when `text` is not a slash command (`/` then a letter). */
export function parseCommandLine(
  text: string,
  commands: readonly CommandDefinition[] = COMMANDS,
): ParsedCommand | undefined {
  const match = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (match === null || match[1] === undefined) {
    return undefined;
  }
  const name = match[1].toLowerCase();
  const definition = commands.find(
    (command) => command.name === name || command.aliases?.includes(name) === true,
  );
  return { name, argument: (match[2] ?? "").trim(), definition };
}

function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => commandUsage(command).length));
  return COMMANDS.map(
    (command) => `${commandUsage(command).padEnd(width)}  ${command.description}`,
  ).join("\n");
}

function commandUsage(command: CommandDefinition): string {
  const names = [command.name, ...(command.aliases ?? [])].map((name) => `/${name}`).join(", ");
  return command.input === undefined
    ? names
    : `${names} [${command.input.hint.replace(/ \(optional\)$/, "")}]`;
}

async function resumeCommand(
  host: SessionHost,
  current: Session,
  argument: string,
): Promise<CommandOutcome> {
  try {
    if (argument === "") {
      const sessions = (await host.list({ cwd: current.cwd })).filter(
        (summary) => summary.sessionId !== current.id && summary.problem === undefined,
      );
      return sessions.length === 0
        ? { kind: "text", text: "no other session in this folder" }
        : { kind: "choose-session", sessions };
    }
    const resolved = await host.resolveId(argument);
    if (!resolved.ok) {
      return failed(resolved.message);
    }
    if (resolved.sessionId === current.id) {
      return { kind: "text", text: "that is the session open now" };
    }
    // Its model is checked before anything is written, as `--resume` checks it: a session whose
    // model cannot run here (its config profile removed) is refused and its log left as it was.
    const opened = await host.open(resolved.sessionId, undefined, ({ start, state }) =>
      host.modelRefusal(state.changedModel ?? start.model),
    );
    // Its folder's project file applies (host.ts `configOf`): say what that file holds back.
    const held = host.configOf(opened).heldWarning;
    const elsewhere = host.configOf(opened) === host.config ? "" : ` in ${opened.cwd}`;
    const warning = held === undefined || elsewhere === "" ? "" : `\nwarning: ${held}`;
    return {
      kind: "open",
      session: opened,
      text: `resumed session ${opened.id}${elsewhere}${warning}`,
    };
  } catch (error) {
    return failed(
      error instanceof SessionLockedError ? error.message : `cannot resume: ${errorMessage(error)}`,
    );
  }
}

/**
 * `/usage`: the session's turns (and retries), tokens and cost by the rule `-p`'s summary and
 * JSON result count a prompt's by (usage-totals.ts); of the input, what was read from the prompt
 * cache and written to it (Anthropic's wire; the cost counts both at their own rates).
 */
export function usageText(totals: UsageTotals): string {
  // No request yet: nothing to report; requests made and none reported a count: said so.
  const tokens = (count: number | undefined) =>
    count ?? (totals.requests === 0 ? 0 : "not reported");
  const read = totals.cacheReadTokens ?? 0;
  const written = totals.cacheWriteTokens ?? 0;
  const cacheParts = [
    read > 0 ? `${compactCount(read)} read from cache` : "",
    written > 0 ? `${compactCount(written)} written to cache` : "",
  ].filter((part) => part !== "");
  const cached = cacheParts.length === 0 ? "" : ` (${cacheParts.join(", ")})`;
  return [
    `turns:          ${totals.turns}${turnDetails(totals)}`,
    `input tokens:   ${tokens(totals.inputTokens)}${cached}`,
    `output tokens:  ${tokens(totals.outputTokens)}`,
    `cost:           ${costText(totals) ?? "unknown (no price for this model)"}`,
  ].join("\n");
}

function sessionsText(sessions: readonly SessionSummary[], currentId: string): string {
  if (sessions.length === 0) {
    return "no sessions in this folder";
  }
  return sessions
    .map((summary) => {
      const marker = summary.sessionId === currentId ? "*" : " ";
      const prompt = summaryLine(summary);
      return `${marker} ${summary.sessionId.slice(0, 8)}  ${age(summary.lastActivity).padEnd(10)}  ${prompt}`;
    })
    .join("\n");
}

/**
 * `/new`: a session in the folder turnloop was started in, with the model new sessions get
 * (`--model`, else `TURNLOOP_MODEL` or a config file's), as `turnloop` alone opens one (README);
 * when the current session (a resumed one) has another folder or model, the note says so.
 */
async function newSession(
  host: SessionHost,
  current: Session,
  currentModel: Pick<ModelConfiguration, "id">,
): Promise<CommandOutcome> {
  const resolved = host.resolveModel();
  if (!resolved.ok) {
    return failed(`cannot start a session: ${resolved.message.replace(/^turnloop: /, "")}`);
  }
  const cwd = host.config.cwd.value;
  const modelId = resolved.configuration.id;
  try {
    const opened = await host.create(cwd, modelId, { saveAtFirstPrompt: true, morePrompts: true });
    const notes = [
      ...(sameFolder(cwd, current.cwd) ? [] : [`in ${cwd} (where turnloop was started)`]),
      ...(modelId === currentModel.id ? [] : [`with ${modelId} (the model new sessions get)`]),
    ];
    return {
      kind: "open",
      session: opened,
      text: `new session ${opened.id}${notes.map((note) => ` ${note}`).join(",")}`,
    };
  } catch (error) {
    return failed(`cannot start a session: ${errorMessage(error)}`);
  }
}
