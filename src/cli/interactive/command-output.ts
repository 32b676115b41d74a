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
