import type * as acp from "@agentclientprotocol/sdk";

/**
 * The session modes turnloop offers over ACP (`session/set_mode`, and the `mode` config option).
 * `ask`: calls that need permission are asked through `session/request_permission`.
 * `auto`: every tool runs without asking (`--allow-all-tools`).
 * `autopilot`: like `auto`, and the loop keeps going until the model calls `task_complete`.
 */
export type ModeId = "ask" | "auto" | "autopilot";

const MODES: readonly acp.SessionMode[] = [
  {
    id: "ask",
    name: "Ask",
    description: "Reads inside the workspace run freely; edits and commands ask first.",
  },
  { id: "auto", name: "Auto", description: "Every tool runs without asking." },
  {
    id: "autopilot",
    name: "Autopilot",
    description: "Works on its own until the task is done; tools run without asking.",
  },
];

/** Id of the `mode` config option (category `mode`). */
export const MODE_OPTION_ID = "mode";
/** Id of the `model` config option (category `model`). */
export const MODEL_OPTION_ID = "model";

export function isModeId(value: string): value is ModeId {
  return MODES.some((mode) => mode.id === value);
}

/** The mode a session starts in: from `--autopilot` / `--allow-all-tools`, else `ask`. */
export function defaultMode(flags: { autopilot: boolean; allowAllTools: boolean }): ModeId {
  if (flags.autopilot) {
    return "autopilot";
  }
  return flags.allowAllTools ? "auto" : "ask";
}

/** ACP v1 session-modes: the `modes` field of `session/new` / `load` / `resume` answers. */
export function modeState(current: ModeId): acp.SessionModeState {
  return { currentModeId: current, availableModes: [...MODES] };
}

/**
 * ACP v1 session-config-options: the full list, mode first (agents SHOULD send both `modes` and a
 * `category: "mode"` option during the transition), then the model.
 */
export function configOptions(
  mode: ModeId,
  model: string,
  models: readonly string[],
): acp.SessionConfigOption[] {
  return [
    {
      type: "select",
      id: MODE_OPTION_ID,
      name: "Mode",
      category: "mode",
      currentValue: mode,
      options: MODES.map((entry) => ({
        value: entry.id,
        name: entry.name,
        ...(entry.description == null ? {} : { description: entry.description }),
      })),
    },
    {
      type: "select",
      id: MODEL_OPTION_ID,
      name: "Model",
      category: "model",
      currentValue: model,
      options: models.map((id) => ({ value: id, name: id })),
    },
  ];
}

/**
 * Slash commands that work (ACP v1 slash-commands): each is handled by the agent itself when a
 * prompt's text starts with `/name`; none is announced that does nothing.
 */
export const AVAILABLE_COMMANDS: readonly acp.AvailableCommand[] = [
  {
    name: "autopilot",
    description: "Switch to autopilot mode, then work on the task given (if any) until it is done.",
    input: { hint: "task to complete (optional)" },
  },
  {
    name: "model",
    description:
      "Show the model, or switch to another one (e.g. /model anthropic:claude-sonnet-4-5).",
    input: { hint: "provider:model (optional)" },
  },
  {
    name: "compact",
    description:
      "Summarise the older conversation to free context; the latest turn is kept verbatim.",
    input: { hint: "what the summary should focus on (optional)" },
  },
];

/** A prompt that starts with one of {@link AVAILABLE_COMMANDS}. */
export interface SlashCommand {
  name: "autopilot" | "model" | "compact";
  /** The rest of the text, trimmed. */
  argument: string;
}

/** Parses a known slash command at the start of the prompt text; anything else is a prompt. */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const match = /^\/(autopilot|model|compact)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (match === null) {
    return undefined;
  }
  const name = match[1] === "autopilot" || match[1] === "compact" ? match[1] : "model";
  return { name, argument: (match[2] ?? "").trim() };
}
