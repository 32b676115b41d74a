/**
 * What turnloop's faces add to a typed prompt, and how a face finds what was typed again. After
 * it, after a blank line: the interactive face's `@file` blocks (cli/interactive/prompt-input.ts)
 * and `-p`'s piped stdin (cli/prompt-input.ts); session titles end where the first one begins.
 * Before it: the output of the user's own `!command`s (the interactive face), so that the model
 * sees what the user saw; a face that shows the message again (a reopened session, ACP
 * `session/load`'s replay, titles) shows what was typed instead, as the live session did.
 */
/** How each block appended after the typed prompt begins. */
export const ATTACHMENT_OPENINGS = {
  file: "Attached file ",
  stdin: '<attachment source="stdin"',
} as const;

/** A `!command` that ran: the command, how it ended in a few words (`exit 3`), its output. */
export interface ShellRun {
  command: string;
  ending: string;
  output: string;
}

/** The three or more backticks that fence `output`: one more than its longest run of them. */
function fenceFor(output: string): string {
  const longest = Math.max(2, ...[...output.matchAll(/`+/g)].map((run) => run[0].length));
  return "`".repeat(longest + 1);
}

/**
 * How a `!command`'s result is offered to the model with the next prompt: ``The user ran `ls`
 * in the terminal (exit 0). Its output:`` and the output in a fence longer than any run of
 * backticks in it (CommonMark 0.31, 4.5 Fenced code blocks), so {@link typedPrompt} finds its end.
 */
export function shellContext(run: ShellRun): string {
  const fence = fenceFor(run.output);
  return `The user ran \`${run.command}\` in the terminal (${run.ending}). Its output:\n${fence}\n${run.output.replace(/\n$/, "")}\n${fence}`;
}

/** The start of one {@link shellContext} block: command, ending, and the fence that opens. */
const RUN_START = /^The user ran `([^\n]*)` in the terminal \(([^\n)]*)\)\. Its output:\n(`{3,})\n/;

/**
 * A prompt's `content` split back into the `!command`s that ran before it (each block
 * {@link shellContext} wrote, in order) and the prompt as typed. Content without such blocks is
 * all typed.
 */
export function typedPrompt(content: string): { runs: ShellRun[]; typed: string } {
  const runs: ShellRun[] = [];
  let rest = content;
  for (;;) {
    const start = RUN_START.exec(rest);
    if (start === null) {
      return { runs, typed: rest };
    }
    const [opening, command = "", ending = "", fence = ""] = start;
    const body = rest.slice(opening.length);
    // The output runs up to the closing fence on a line of its own (no run of backticks in it
    // is as long), then a blank line and the rest.
    const close = body.indexOf(`\n${fence}`);
    const after = close + 1 + fence.length;
    if (close < 0 || !(body.length === after || body.startsWith("\n\n", after))) {
      return { runs, typed: rest };
    }
    runs.push({ command, ending, output: body.slice(0, close) });
    rest = body.slice(after + 2);
  }
}

/**
 * How a face shows a `!command` of a reopened session, as the interactive face showed it when
 * it ran: `$ command`, its output, then how it ended and where the output went.
 */
export function ranLines(run: ShellRun): string[] {
  const output = run.output === "" ? [] : run.output.split("\n");
  return [
    `$ ${run.command}`,
    ...output,
    `${run.ending} · the output went to the model with the prompt below`,
  ];
}
