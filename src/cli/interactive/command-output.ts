import { closestName } from "../../events/setting-words.js";
import { COMMANDS } from "../../session/commands.js";

/**
 * A slash command's output as the interactive faces draw it, apart from the model's answers
 * (which start at the left edge) and the prompts (`› …`): under the command as typed, each line
 * two columns in, so that a wrapped row hangs under its text (text-wrap.ts).
 */
export function commandBody(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? "" : `  ${line}`))
    .join("\n");
}

/**
 * What an unknown `/name` gets: `unknown command /name (did you mean /nearest?); /help lists
 * them`, with the nearest command's name when one is close (events/setting-words.ts
 * `closestName`). Other agents' names for a command (`/clear`, `/quit`) are its aliases
 * (session/commands.ts), so they never come here.
 */
export function unknownCommandText(name: string): string {
  const meant = closestName(
    name,
    COMMANDS.map((command) => command.name),
  );
  const hint = meant === undefined ? "" : ` (did you mean /${meant}?)`;
  return `unknown command /${name}${hint}; /help lists them`;
}
