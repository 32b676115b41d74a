/**
 * Text a user, a file or an editor supplied, made safe to put between `<tag …>` and `</tag>` in
 * what the model reads: each `</tag` in it (any case) is written `<\/tag`, so the text cannot end
 * its block early and go on as something the block does not hold (a forged `<context>` of another
 * file, instructions that seem to come from turnloop). Everything else is kept as it was.
 */
export function tagBody(text: string, tag: string): string {
  return text.replace(new RegExp(`</(${tag})`, "gi"), "<\\/$1");
}
