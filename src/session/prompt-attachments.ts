/**
 * What turnloop's faces add to a typed prompt, and how a face finds what was typed again. After
 * it, after a blank line: the interactive face's `@file` blocks (cli/interactive/prompt-input.ts)
 * and `-p`'s piped stdin (cli/prompt-input.ts). Before it: the output of the user's own
 * `!command`s (the interactive face), so that the model sees what the user saw. An ACP prompt's
 * resources and an SDK prompt's attachments are rendered into the model's text by their faces,
 * which record the prompt as given beside it (`user.message`'s `contentBlocks`). A face that shows
 * the message again (a reopened session, ACP `session/load`'s replay, `sessions show`, the view,
 * the SDK's `getMessages`, titles) shows the prompt as given instead ({@link givenPrompt}), as the
 * live session did.
 */
import type { PromptBlock, UserMessageData } from "../events/events.js";

/** How each block appended after the typed prompt begins. */
export const ATTACHMENT_OPENINGS = {
  file: "Attached file ",
  stdin: '<attachment source="stdin"',
} as const;

/**
 * Whether a prompt gives the model nothing: its text is blank (empty, or only spaces and line
 * ends) and it attaches nothing (`attachments`: how many files, images, resources or blobs come
 * with it). Every face refuses such a prompt before anything is stored or sent to the model, as
 * `-p ""` always did (a script's `-p "$UNSET"` or an app's bug would otherwise pay for a request
 * and store a turn): `-p` exits 64, ACP v1 `session/prompt` and Copilot wire `session.send` answer
 * `-32602`, the interactive box ignores Enter on a blank line. Neither ACP v1 nor the Copilot wire
 * says what an empty prompt does; this is turnloop's rule.
 */
export function isEmptyPrompt(text: string, attachments: number): boolean {
  return attachments === 0 && text.trim() === "";
}

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
 * it ran: `$ command`, its output, then its {@link ranEnding} line.
 */
export function ranLines(run: ShellRun): string[] {
  const output = run.output === "" ? [] : run.output.split("\n");
  return [`$ ${run.command}`, ...output, ranEnding(run)];
}

/**
 * The line under a `!command` that ended, the same live and reopened: how it ended, and what goes
 * to the model with the prompt that follows it (`exit 0 · the output goes to the model with your
 * next prompt`; an output of only blank lines: `no output; the model is told so`).
 */
export function ranEnding(run: Pick<ShellRun, "ending" | "output">): string {
  const sent =
    run.output.trim() === "" ? "no output; the model is told so" : "the output goes to the model";
  return `${run.ending} · ${sent} with your next prompt`;
}

/**
 * The `@file`s a prompt attached (the interactive face), each named by its path as shown, in
 * order, from what its `user.message` sent ({@link sentAttachments}). The session model holds
 * them with the prompt (session-model/types.ts `Prompt.attachedFiles`), which the views read.
 */
export function attachedFileNames(
  data: Pick<UserMessageData, "content" | "contentBlocks">,
): string[] {
  return sentAttachments(data).flatMap((attachment) =>
    attachment.kind === "file" ? [attachment.name] : [],
  );
}

/**
 * The line every view draws under a prompt that attached `@file`s ({@link attachedFileNames}):
 * `attached notes.md, src/a.ts`; `undefined` when it attached none.
 */
export function attachedFilesLine(files: readonly string[]): string | undefined {
  return files.length === 0 ? undefined : `attached ${files.join(", ")}`;
}

/**
 * How an `@file` is sent to the model after the typed prompt: `Attached file notes.md:` and the
 * file in a fence longer than any run of backticks in it (as {@link shellContext}'s), so
 * {@link sentAttachments} finds its end.
 */
export function attachedFileBlock(shown: string, body: string): string {
  const fence = fenceFor(body);
  return `${ATTACHMENT_OPENINGS.file}${shown}:\n${fence}\n${body}${body.endsWith("\n") ? "" : "\n"}${fence}`;
}

/**
 * Text the model got with a prompt besides what the user typed: an `@file` of the interactive
 * face (`file`, named by its path as shown), text piped into `-p` (`stdin`), an embedded
 * resource of an ACP prompt (`resource`, named by its URI); `other` for what follows the typed
 * text in a form none of these has (a hand-edited log), kept whole.
 */
export interface SentAttachment {
  kind: "file" | "stdin" | "resource" | "other";
  /** The path as shown, `stdin`, the resource's URI; `""` for `other`. */
  name: string;
  /** The text as the model got it, without the block's opening and closing lines. */
  text: string;
}

/**
 * What the model got with a `user.message` besides the prompt as given ({@link givenPrompt}):
 * each attachment's text, in order. A face that exports what the model saw shows these with
 * the `!command` outputs ({@link typedPrompt}'s `runs`).
 */
export function sentAttachments(
  data: Pick<UserMessageData, "content" | "contentBlocks">,
): SentAttachment[] {
  const blocks = data.contentBlocks?.map((block) => withText(block, data.content));
  if (blocks !== undefined && blocks.length > 0) {
    return blocks.flatMap((block) => {
      const resource = block.resource;
      const isText =
        block.type === "resource" &&
        typeof resource === "object" &&
        resource !== null &&
        !Array.isArray(resource) &&
        typeof resource.text === "string";
      return isText
        ? [
            {
              kind: "resource" as const,
              name: String(resource.uri ?? ""),
              text: resource.text as string,
            },
          ]
        : [];
    });
  }
  const { typed } = typedPrompt(data.content);
  const start = attachmentsStart(typed);
  return start === undefined ? [] : parseAttachments(typed.slice(start + 2));
}

/** Where the blank line before the first attachment block is in the typed text, if any. */
function attachmentsStart(typed: string): number | undefined {
  const starts = Object.values(ATTACHMENT_OPENINGS)
    .map((opening) => typed.indexOf(`\n\n${opening}`))
    .filter((index) => index >= 0);
  return starts.length === 0 ? undefined : Math.min(...starts);
}

/** `Attached file <path>:` and its fence line. */
const FILE_START = /^Attached file ([^\n]*):\n(`{3,})\n/;
/** `<attachment source="stdin" bytes="N">` and its newline; the text runs to `</attachment>`. */
const STDIN_START = /^<attachment source="stdin"[^>\n]*>\n/;
const STDIN_END = "</attachment>";

/** The attachment blocks `rest` holds, one after another, blank lines apart. */
function parseAttachments(rest: string): SentAttachment[] {
  const attachments: SentAttachment[] = [];
  let remaining = rest;
  while (remaining !== "") {
    const file = FILE_START.exec(remaining);
    const stdin = STDIN_START.exec(remaining);
    if (file !== null) {
      const [opening, name = "", fence = ""] = file;
      const body = remaining.slice(opening.length);
      // The file runs to a line that is its fence, at the end or before the next block.
      const close = closingFence(body, fence);
      if (close !== undefined) {
        attachments.push({ kind: "file", name, text: body.slice(0, close) });
        remaining = body.slice(close + 1 + fence.length).replace(/^\n\n/, "");
        continue;
      }
    } else if (stdin !== null && remaining.endsWith(STDIN_END)) {
      const text = remaining.slice(stdin[0].length, -STDIN_END.length).replace(/\n$/, "");
      attachments.push({ kind: "stdin", name: "stdin", text });
      return attachments;
    }
    attachments.push({ kind: "other", name: "", text: remaining });
    return attachments;
  }
  return attachments;
}

/** Where the `\n` before `fence` closing `body` is: at the end, or before a blank line and a block. */
function closingFence(body: string, fence: string): number | undefined {
  let from = 0;
  for (;;) {
    const close = body.indexOf(`\n${fence}`, from);
    if (close < 0) {
      return undefined;
    }
    const after = body.slice(close + 1 + fence.length);
    if (
      after === "" ||
      Object.values(ATTACHMENT_OPENINGS).some((opening) => after.startsWith(`\n\n${opening}`))
    ) {
      return close;
    }
    from = close + 1;
  }
}

/** A prompt as the user gave it (see {@link givenPrompt}). */
export interface GivenPrompt {
  /** The interactive face's `!command`s that ran just before it, in order. */
  runs: ShellRun[];
  /** The user's own text: the prompt as typed, or the text blocks sent, joined by blank lines. */
  text: string;
  /** The blocks the client sent, in order, when the log recorded them (`contentBlocks`). */
  blocks?: readonly PromptBlock[];
  /**
   * A line naming each block that is not text, then each image (`[link: package.json
   * file:///…/package.json]`, `[image: image/png]`), for the faces that show text only.
   */
  attached: string[];
}

/**
 * The prompt of a `user.message` as the user gave it, never the text the model got: the content
 * blocks recorded beside it, or, for a log that has none (earlier versions; a prompt that is its
 * own text), its content without the `!command` output before it and the `@file` and stdin
 * blocks after it ({@link ATTACHMENT_OPENINGS}).
 */
export function givenPrompt(
  data: Pick<UserMessageData, "content" | "contentBlocks" | "images">,
): GivenPrompt {
  const blocks = data.contentBlocks?.map((block) => withText(block, data.content));
  const images = (data.images ?? []).map((image) => `[image: ${image.mimeType}]`);
  if (blocks !== undefined && blocks.length > 0) {
    const texts = blocks.flatMap((block) =>
      block.type === "text" && typeof block.text === "string" ? [block.text] : [],
    );
    const attached = blocks.flatMap((block) => (block.type === "text" ? [] : [blockLine(block)]));
    return { runs: [], text: texts.join("\n\n"), blocks, attached: [...attached, ...images] };
  }
  const { runs, typed } = typedPrompt(data.content);
  const text = typed.slice(0, attachmentsStart(typed));
  return { runs, text, attached: images };
}

/**
 * Where a block's text is in `user.message`'s `content`, for a block that keeps it there only: a
 * text block's `text` or an embedded resource's `resource.text` that the model's text holds
 * verbatim (src/acp/prompt-content.ts), so a prompt's file is stored once. Offsets count UTF-16
 * code units (JavaScript string indexes).
 */
export interface TextInContent {
  start: number;
  length: number;
}

/**
 * `block` with its text put back from `content` when it keeps it there ({@link TextInContent}):
 * as the client sent it. A range that does not fit `content` (a hand-edited log) gives "".
 * Blocks of earlier logs, which hold their text, are returned as they are.
 */
function withText(block: PromptBlock, content: string): PromptBlock {
  const { textInContent, ...rest } = block;
  if (textInContent === undefined) {
    return block;
  }
  const text = textAt(content, textInContent);
  const resource = rest.resource;
  if (
    rest.type === "resource" &&
    typeof resource === "object" &&
    resource !== null &&
    !Array.isArray(resource)
  ) {
    return { ...rest, resource: { ...resource, text } };
  }
  return { ...rest, text };
}

function textAt(content: string, range: unknown): string {
  const { start, length } = (range ?? {}) as { start?: unknown; length?: unknown };
  const fits =
    Number.isSafeInteger(start) &&
    Number.isSafeInteger(length) &&
    (start as number) >= 0 &&
    (length as number) >= 0 &&
    (start as number) + (length as number) <= content.length;
  return fits ? content.slice(start as number, (start as number) + (length as number)) : "";
}

/** One line naming a block that is not text, for the faces that show text only. */
function blockLine(block: PromptBlock): string {
  const field = (name: string) =>
    typeof block[name] === "string" ? (block[name] as string) : undefined;
  const resource = block.resource;
  const resourceUri =
    resource !== null &&
    typeof resource === "object" &&
    !Array.isArray(resource) &&
    typeof resource.uri === "string"
      ? resource.uri
      : undefined;
  switch (block.type) {
    case "resource_link":
      return `[link: ${field("title") ?? field("name") ?? ""} ${field("uri") ?? ""}]`;
    case "resource":
      return `[resource: ${resourceUri ?? ""}]`;
    default:
      return `[${block.type}${field("mimeType") === undefined ? "" : `: ${field("mimeType")}`}]`;
  }
}
