import type * as acp from "@agentclientprotocol/sdk";
import type { ModelConfiguration } from "../llm/models.js";
import {
  COMMANDS,
  type CommandContext,
  type CommandDefinition,
  type CommandOutcome,
  parseCommandLine,
} from "../session/commands.js";
import type { ModeId } from "./modes.js";

/** The slash commands a face without a terminal of its own can run (not `/new`, `/resume`, `/exit`). */
const ACP_COMMANDS: readonly CommandDefinition[] = COMMANDS.filter(
  (command) => !command.terminalOnly,
);

/**
 * ACP v1 slash-commands: the `availableCommands` of `available_commands_update`, from the same
 * definitions the interactive terminal runs (`session/commands.ts`).
 */
export function availableCommands(): acp.AvailableCommand[] {
  return ACP_COMMANDS.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.input === undefined ? {} : { input: { hint: command.input.hint } }),
  }));
}

/** What a command run over ACP reads and changes in its session. */
export interface CommandTarget {
  context: Omit<CommandContext, "argument">;
  /** Replies to the user (an `agent_message_chunk` of the agent itself, not the model). */
  say(text: string): void;
  setMode(mode: ModeId): void;
  useModel(configuration: ModelConfiguration): void;
}

/**
 * Runs the slash command at the start of `text` (ACP v1: the client sends it as prompt text
 * `/name argument`). A terminal-only command gets a reply saying so.
 * @returns whether `text` was a known command (then nothing goes to the model), never throws.
 */
export async function runSlashCommand(text: string, target: CommandTarget): Promise<boolean> {
  const parsed = parseCommandLine(text);
  if (parsed?.definition === undefined) {
    return false;
  }
  if (parsed.definition.terminalOnly) {
    target.say(`/${parsed.name} works in turnloop's interactive terminal, not over ACP.`);
    return true;
  }
  const outcome = await parsed.definition.run({ ...target.context, argument: parsed.argument });
  await apply(outcome, target);
  return true;
}

async function apply(outcome: CommandOutcome, target: CommandTarget): Promise<void> {
  switch (outcome.kind) {
    case "text":
      target.say(outcome.error === true ? `Error: ${outcome.text}` : outcome.text);
      return;
    case "model":
      target.useModel(outcome.model);
      target.say(outcome.text);
      return;
    case "mode":
      target.setMode(outcome.mode);
      target.say(outcome.text);
      return;
    case "open":
      // Only terminal-only commands open sessions; never leave one locked.
      await target.context.host.close(outcome.session);
      target.say(outcome.text);
      return;
    case "compact":
      // AcpSession.run runs /compact itself, as a turn with the prompt's cancel signal.
      target.say("/compact runs as a prompt of its own; send it alone.");
      return;
    case "choose-session":
    case "exit":
      target.say("That command works in turnloop's interactive terminal, not over ACP.");
      return;
    default: {
      const unhandled: never = outcome;
      return unhandled;
    }
  }
}

/**
 * The model a command sees: the session's configuration or, while its key is missing, the one
 * its id names, without a key (commands read only its id).
 */
export function commandModel(
  id: string,
  configuration: ModelConfiguration | undefined,
): ModelConfiguration {
  if (configuration !== undefined) {
    return configuration;
  }
  const separator = id.indexOf(":");
  return {
    id,
    provider: id.slice(0, separator) as ModelConfiguration["provider"],
    modelName: id.slice(separator + 1),
  };
}
