/**
 * The slash commands every face offers, in the order they are listed (ACP's
 * `available_commands_update`, the SDK's `session.commands.list`, the terminal's `/help`).
 */
export const SESSION_COMMAND_NAMES = [
  "help",
  "model",
  "mode",
  "usage",
  "sessions",
  "compact",
  "mcp",
  "permissions",
] as const;

/** The commands only the interactive terminal has, after {@link SESSION_COMMAND_NAMES}. */
export const TERMINAL_COMMAND_NAMES = ["new", "resume", "exit"] as const;
