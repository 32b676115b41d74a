/**
 * Text the server adds to what the loop gets: the app's system message (append, replace, or
 * customised sections) and a prompt's attachments, put to the model the way the Copilot CLI puts
 * them (the recordings in `../shared/transcripts/copilot-sdk/session/should_send_with_*`).
 */

import { readdir, writeFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { makeFolders } from "../events/errors.js";
import type { PromptBlock, PromptImage } from "../events/events.js";
import { readProjectFileInBackground } from "../tools/project-file.js";
import type { SendParams, SystemMessageParams } from "./params.js";

/**
 * The sections of turnloop's system prompt under Copilot's section ids: the first line is
 * `identity`, the second `environment_context`, the "How to work" block `guidelines`, and what
 * follows (the autopilot note) `last_instructions`.
 */
export type PromptSections = Array<{ id: string; content: string }>;

export function promptSections(base: string): PromptSections {
  const [identity = "", environment = "", ...rest] = base.split("\n");
  const blocks = rest
    .join("\n")
    .trim()
    .split(/\n\s*\n/);
  const [guidelines = "", ...last] = blocks;
  return [
    { id: "identity", content: identity },
    { id: "environment_context", content: environment },
    { id: "guidelines", content: guidelines },
    ...(last.length === 0 ? [] : [{ id: "last_instructions", content: last.join("\n\n") }]),
  ];
}

/**
 * turnloop's system prompt with the app's `systemMessage`: `append` (default) adds `content`;
 * `replace` uses `content` alone; `customize` applies each section's action (`replace`, `remove`,
 * `append`, `prepend`, `preserve`; a `transform` section takes `transformed[id]`, what the app's
 * callback returned) and then appends `content`. Overrides of sections turnloop does not have add
 * their content at the end; removing one is nothing to do (Copilot's documented fallback).
 */
export function systemPromptWith(
  base: string,
  message: SystemMessageParams | undefined,
  transformed: Record<string, string> = {},
): string {
  const content = message?.content ?? "";
  if (message?.mode === "replace") {
    return content;
  }
  const parts = [base];
  if (message?.mode === "customize" && message.sections !== undefined) {
    const sections = promptSections(base);
    const extra: string[] = [];
    for (const [id, override] of Object.entries(message.sections)) {
      const section = sections.find((candidate) => candidate.id === id);
      const text = override.content ?? "";
      if (section === undefined) {
        if (override.action !== "remove" && text !== "") {
          extra.push(text);
        }
        continue;
      }
      section.content = applied(section.content, override.action, text, transformed[id]);
    }
    parts[0] = sections
      .map((section) => section.content)
      .filter((text) => text !== "")
      .join("\n\n");
    parts.push(...extra);
  }
  if (content !== "") {
    parts.push(content);
  }
  return parts.join("\n\n");
}

function applied(current: string, action: string, text: string, transformed?: string): string {
  switch (action) {
    case "replace":
      return text;
    case "remove":
      return "";
    case "append":
      return `${current}\n${text}`;
    case "prepend":
      return `${text}\n${current}`;
    case "transform":
      return transformed ?? current;
    default:
      return current;
  }
}

/** The section ids whose content the app transforms (`action: "transform"`). */
export function transformedSections(message: SystemMessageParams | undefined): string[] {
  if (message?.mode !== "customize" || message.sections === undefined) {
    return [];
  }
  return Object.entries(message.sections)
    .filter(([, override]) => override.action === "transform")
    .map(([id]) => id);
}

/**
 * The app's prompt as `user.message`'s `contentBlocks` keeps it beside `text`, the model's text,
 * when the two differ: one text block whose text is kept in `content` only (`textInContent`, the
 * range of `text` that holds it: session/prompt-attachments.ts `TextInContent`, which
 * `givenPrompt` puts back), so the prompt is stored once; with its own `text` only when the
 * model's text does not hold it (a `userPromptSubmitted` hook rewrote it).
 */
export function givenPromptBlocks(prompt: string, text: string): PromptBlock[] {
  const start = prompt === "" ? -1 : text.indexOf(prompt);
  return start === -1
    ? [{ type: "text", text: prompt }]
    : [{ type: "text", textInContent: { start, length: prompt.length } }];
}

type Attachment = NonNullable<SendParams["attachments"]>[number];

/** Image types a blob is sent to the model as (those the vision APIs take). */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * The prompt as Copilot puts it to the model: a selection before it in `<ide_selection>`, files
 * and folders after it in `<tagged_files>` (path, and the file's line count or the folder's item
 * count; the model reads them with its tools), each part three blank lines apart. A `blob` of an
 * image type (PNG, JPEG, GIF, WebP) is an image of the prompt, its `displayName` a line of its
 * own after the text ("Describe this image\ntest-pixel.png" and the image: the Copilot SDK's
 * replay snapshot `session/should_accept_blob_attachments`; a model without vision gets the text
 * alone, see llm/convert.ts); another blob is saved under the session folder's `files/` and
 * tagged like a file, so `view` can show it.
 */
export async function withAttachments(
  prompt: string,
  attachments: SendParams["attachments"],
  folders: { cwd: string; sessionDirectory: string },
): Promise<{ text: string; images: PromptImage[] }> {
  const before: string[] = [];
  const tagged: string[] = [];
  const names: string[] = [];
  const images: PromptImage[] = [];
  for (const [index, attachment] of (attachments ?? []).entries()) {
    if (attachment.type === "selection") {
      before.push(selectionText(attachment));
    } else if (attachment.type === "blob" && IMAGE_TYPES.has(attachment.mimeType)) {
      images.push({ mimeType: attachment.mimeType, data: attachment.data });
      names.push(...(attachment.displayName === undefined ? [] : [attachment.displayName]));
    } else {
      tagged.push(await taggedLine(attachment, index, folders));
    }
  }
  const parts = [...before, prompt];
  if (tagged.length > 0) {
    parts.push(`<tagged_files>\n${tagged.join("\n")}\n</tagged_files>`);
  }
  return { text: [parts.join("\n\n\n\n"), ...names].join("\n"), images };
}

function selectionText(attachment: Extract<Attachment, { type: "selection" }>): string {
  const start = (attachment.selection?.start.line ?? 0) + 1;
  const end = (attachment.selection?.end.line ?? start - 1) + 1;
  const lines = end > start ? `lines ${start}-${end}` : `line ${start}`;
  const name = attachment.displayName ?? attachment.filePath;
  return [
    "<ide_selection>",
    "The user has the following text selected in their IDE. This may or may not be related to their request.",
    `File: ${name} (${lines})`,
    "```",
    attachment.text,
    "```",
    "</ide_selection>",
  ].join("\n");
}

async function taggedLine(
  attachment: Exclude<Attachment, { type: "selection" }>,
  index: number,
  folders: { cwd: string; sessionDirectory: string },
): Promise<string> {
  switch (attachment.type) {
    case "file": {
      const path = resolve(folders.cwd, attachment.path);
      const count = await attachedLineCount(path);
      return count === undefined
        ? `* ${path} (unreadable)`
        : `* ${path} (${linesText(count, attachment.lineRange)})`;
    }
    case "directory": {
      const path = resolve(folders.cwd, attachment.path);
      const entries = await readdir(path).catch(() => undefined);
      return `* ${path} (${entries === undefined ? "unreadable" : `${entries.length} items`})`;
    }
    case "blob": {
      const directory = join(folders.sessionDirectory, "files");
      await makeFolders(directory);
      const name = `attachment-${Date.now()}-${index}${extensionFor(attachment)}`;
      const path = join(directory, name);
      await writeFile(path, Buffer.from(attachment.data, "base64"));
      const label = attachment.displayName === undefined ? "" : `${attachment.displayName}, `;
      return `* ${path} (${label}${attachment.mimeType})`;
    }
  }
}

/** Bytes of an attached file read at most to count its lines: past them it is `unreadable`. */
const ATTACHED_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The lines of the attached file at `path` (the app's to name: read where it leads; a last line
 * without its newline counts), or undefined when it cannot be read, is not a regular file (a FIFO
 * is never waited on, `/dev/zero` never read: tools/project-file.ts `readProjectFile`) or is
 * longer than {@link ATTACHED_FILE_MAX_BYTES}. Read by the thread pool
 * (`readProjectFileInBackground`): the server's one thread goes on serving every other session
 * meanwhile. A newline is the byte 0x0A in UTF-8 whatever surrounds it, so the bytes are counted,
 * not decoded.
 */
async function attachedLineCount(path: string): Promise<number | undefined> {
  const file = await readProjectFileInBackground(path, {
    maxBytes: ATTACHED_FILE_MAX_BYTES,
    overLimit: "refuse",
  });
  if (file.kind !== "read") {
    return undefined;
  }
  const { bytes } = file;
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) {
    count += 1;
  }
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? count + 1 : count;
}

/**
 * Copilot's line note of a tagged file: `N lines` for a whole file (the Copilot SDK's replay
 * snapshot `session_config/should_accept_message_attachments`), `line S of N lines` or
 * `lines S-E of N lines` for a `lineRange` (`session/should_send_with_file_attachment`).
 */
function linesText(count: number, range: { start: number; end: number } | undefined): string {
  if (range === undefined) {
    return `${count} lines`;
  }
  const lines =
    range.end > range.start ? `lines ${range.start}-${range.end}` : `line ${range.start}`;
  return `${lines} of ${count} lines`;
}

function extensionFor(attachment: { mimeType: string; displayName?: string | undefined }) {
  const fromName = attachment.displayName === undefined ? "" : extname(attachment.displayName);
  if (fromName !== "") {
    return fromName;
  }
  const subtype = attachment.mimeType.split("/")[1] ?? "bin";
  return `.${subtype.replace(/[^a-z0-9]/gi, "")}`;
}
