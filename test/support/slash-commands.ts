/**
 * The slash commands an editor (ACP `available_commands_update`) and an app (`session.commands`)
 * are offered, in order: `src/session/commands.ts`'s `COMMANDS` without the terminal-only ones
 * (`new`, `resume`, `exit`). Written out, not derived, so a change to the list fails the tests.
 */
export const FACE_COMMAND_NAMES: readonly string[] = [
  "help",
  "model",
  "mode",
  "usage",
  "sessions",
  "compact",
  "mcp",
  "permissions",
];
