import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import type { PromptBlock, PromptImage, UserMessageData } from "../events/events.js";
import { tagBody } from "../events/tag-body.js";
import { base64Bytes } from "../llm/convert.js";
import { imageDataProblem } from "../llm/image-data.js";
import { givenPrompt, isEmptyPrompt } from "../session/prompt-attachments.js";
import { promptTitle } from "../session/session-metadata.js";
import { invalidParams } from "./errors.js";

/** Characters of a prompt kept for a session title (ACP `session_info_update`, `session/list`). */
const TITLE_LENGTH = 80;

/**
 * Image types every image-taking API accepts (Anthropic: JPEG, PNG, GIF, WebP; OpenAI the same).
 * Others (SVG, BMP, TIFF …) are named in a note instead.
 */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * What the model gets for an ACP v1 `session/prompt`: text, and images passed as image input; and
 * the blocks as sent, but those images, when they hold more than text (`user.message`'s
 * `contentBlocks`, so `session/load` replays them as sent).
 */
export interface PromptContent {
  text: string;
  images: PromptImage[];
  contentBlocks?: PromptBlock[];
  /** The blocks the model gets only a note of, as the user is told (agent/loop-types.ts `UserPrompt.notSent`). */
  notSent?: string[];
}

/**
 * Refuses an ACP v1 `session/prompt` that carries nothing for the model: no blocks, or only text
 * blocks of blank text (the faces' one rule, session/prompt-attachments.ts `isEmptyPrompt`). It
 * is refused before any model request, as `-p ""` is a usage error: a client's bug would
 * otherwise pay for a request and store a turn.
 * @throws RequestError -32602.
 */
export function refuseEmptyPrompt(blocks: readonly acp.ContentBlock[]): void {
  const text = blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
  const attached = blocks.filter((block) => block.type !== "text").length;
  if (isEmptyPrompt(text, attached)) {
    throw invalidParams(
      ["prompt"],
      "expected at least one content block with text or an attachment; it is empty",
    );
  }
}

/**
 * Refuses an ACP v1 `session/prompt` with an image whose data is not base64 (an `image` block's
 * `data`, an embedded image resource's `blob`; llm/image-data.ts `imageDataProblem`): the
 * provider would refuse every later request of the session, which keeps its images. Nothing is
 * stored.
 * @throws RequestError -32602 naming the block's field, e.g. `prompt[1].data: is not base64: …`.
 */
export function refuseUndecodableImages(blocks: readonly acp.ContentBlock[]): void {
  for (const [index, block] of blocks.entries()) {
    const image = imageOf(block);
    const problem = image === undefined ? undefined : imageDataProblem(image.data);
    if (problem !== undefined) {
      const field = block.type === "image" ? ["data"] : ["resource", "blob"];
      throw invalidParams(["prompt", index, ...field], problem);
    }
  }
}

/**
 * The prompt the model gets for an ACP v1 `session/prompt` (content blocks, in order). Text
 * blocks as they are; `resource_link`s as a line naming the file (a path for `file:` URIs, so the
 * model can `view` it); embedded `resource`s as context blocks with their text; `image` blocks,
 * and embedded blobs of an image type, as images (the provider layer passes them to APIs that
 * take images and notes them for the others); audio and other binaries as a short note so the
 * model knows something was attached, and the user is told of them (`notSent`).
 */
export function promptContent(blocks: readonly acp.ContentBlock[]): PromptContent {
  const images: PromptImage[] = [];
  const parts: string[] = [];
  const sent: PromptBlock[] = [];
  const notSent: string[] = [];
  // Where the next part starts in the text: after the parts before it and their blank lines.
  let offset = 0;
  for (const block of blocks) {
    const image = imageOf(block);
    if (image !== undefined && IMAGE_TYPES.has(image.mimeType)) {
      images.push(image);
      continue;
    }
    const part = blockText(block);
    const missed = notSentItem(block);
    if (missed !== undefined) {
      notSent.push(missed);
    }
    sent.push(storedBlock(block, part === "" ? undefined : offset));
    if (part !== "") {
      parts.push(part);
      offset += part.length + 2;
    }
  }
  // One block is the common case; `join` would copy it (a 50 MB prompt, issue 27).
  const text = parts.length === 1 ? (parts[0] ?? "") : parts.join("\n\n");
  const given = sent.every((block) => block.type === "text")
    ? { text, images }
    : { text, images, contentBlocks: sent };
  return notSent.length === 0 ? given : { ...given, notSent };
}

/**
 * How the user is told of a block the model gets only a note of (README "Images": whenever an
 * attachment is not sent, you are told so): an image of a type models do not take, audio, an
 * embedded binary resource. Undefined for the others.
 */
function notSentItem(block: acp.ContentBlock): string | undefined {
  switch (block.type) {
    case "image":
      return `an image of type ${block.mimeType} (models take PNG, JPEG, GIF and WebP)`;
    case "audio":
      return `an audio clip (${block.mimeType})`;
    case "resource":
      return "blob" in block.resource
        ? `the binary content of ${displayUri(block.resource.uri)}`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * A block as `user.message`'s `contentBlocks` keeps it: as sent, but a text block's `text` and an
 * embedded resource's `resource.text`, which the model's text holds verbatim (at `partStart`, the
 * start of the block's part in it), are kept there only, as `textInContent`
 * (session/prompt-attachments.ts `TextInContent`; `givenPrompt` puts the text back).
 */
function storedBlock(block: acp.ContentBlock, partStart: number | undefined): PromptBlock {
  const stored = block as unknown as PromptBlock;
  if (partStart === undefined) {
    return stored;
  }
  if (block.type === "text") {
    const { text, ...rest } = block;
    return { ...rest, textInContent: { start: partStart, length: text.length } } as PromptBlock;
  }
  if (block.type === "resource" && "text" in block.resource) {
    const { text, ...resource } = block.resource;
    const start = partStart + contextOpening(resource.uri).length;
    return {
      ...(block as unknown as PromptBlock),
      resource,
      textInContent: { start, length: text.length },
    } as PromptBlock;
  }
  return stored;
}

function imageOf(block: acp.ContentBlock): PromptImage | undefined {
  if (block.type === "image") {
    return {
      mimeType: block.mimeType,
      data: block.data,
      ...(block.uri == null ? {} : { uri: block.uri }),
    };
  }
  if (block.type === "resource" && "blob" in block.resource) {
    const { mimeType, blob, uri } = block.resource;
    if (typeof mimeType === "string" && mimeType.startsWith("image/")) {
      return { mimeType, data: blob, uri };
    }
  }
  return undefined;
}

function blockText(block: acp.ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link": {
      const label = block.title ?? block.name;
      const details = [block.mimeType, block.size == null ? undefined : `${block.size} bytes`]
        .filter((detail) => detail != null)
        .join(", ");
      const suffix = details === "" ? "" : ` (${details})`;
      return `[Referenced: ${label} at ${displayUri(block.uri)}${suffix}]`;
    }
    case "resource":
      return embeddedResourceText(block.resource);
    case "image": {
      const source = block.uri == null ? "" : `, ${displayUri(block.uri)}`;
      const details = `${block.mimeType}, ${base64Bytes(block.data)} bytes${source}`;
      return `[An image was attached (${details}); its type is not one models take (PNG, JPEG, GIF, WebP), so it is not shown.]`;
    }
    case "audio": {
      const details = `${block.mimeType}, ${base64Bytes(block.data)} bytes`;
      return `[An audio clip was attached (${details}); audio is not passed to the model.]`;
    }
  }
}

/** What the model's text has before an embedded resource's text. */
function contextOpening(uri: string): string {
  return `<context source="${displayUri(uri)}">\n`;
}

function embeddedResourceText(resource: acp.EmbeddedResourceResource): string {
  const location = displayUri(resource.uri);
  if ("text" in resource) {
    // The text cannot close the block (trial 43: `</context>` in it ended it early).
    const text = tagBody(resource.text, "context");
    const body = text.endsWith("\n") ? text : `${text}\n`;
    return `${contextOpening(resource.uri)}${body}</context>`;
  }
  const details = `${base64Bytes(resource.blob)} bytes${resource.mimeType == null ? "" : `, ${resource.mimeType}`}`;
  return `[Binary content of ${location} was attached (${details}); it is not shown to the model.]`;
}

/** A `file:` URI as its path; anything else as given. */
function displayUri(uri: string): string {
  if (!uri.startsWith("file:")) {
    return uri;
  }
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * A `user.message` replayed (`session/load`) as the prompt was given: the blocks an ACP client
 * sent (their text put back: session/prompt-attachments.ts `givenPrompt`), or the `!command`s of
 * the interactive face and the prompt as typed; never the text the model got with them; then the
 * images. Each a `user_message_chunk` with the event's id as `messageId`.
 */
export function replayedPrompt(data: UserMessageData, eventId: string): acp.SessionUpdate[] {
  const { runs, text, blocks } = givenPrompt(data);
  const contents: acp.ContentBlock[] = [];
  if (blocks === undefined) {
    const shown = [...runs.map((run) => `!${run.command}`), text].join("\n\n");
    contents.push({ type: "text", text: shown });
  } else {
    contents.push(...(blocks as unknown as acp.ContentBlock[]));
  }
  for (const { mimeType, data: base64, uri } of data.images ?? []) {
    contents.push({ type: "image", mimeType, data: base64, ...(uri === undefined ? {} : { uri }) });
  }
  return contents.map((content) => ({
    sessionUpdate: "user_message_chunk",
    content,
    messageId: eventId,
  }));
}

/**
 * A session title from the first prompt as the user gave it: its text, one line, at most 80
 * characters (no model call), read from the prompt's start only (a 50 MB prompt is not collapsed
 * whole); session-metadata.ts `promptTitle`.
 */
export function titleFrom(prompt: Pick<UserMessageData, "content" | "contentBlocks">): string {
  return promptTitle(prompt, TITLE_LENGTH);
}

/** A message's text as one ACP v1 chunk update of `kind`, with the message's id. */
export function chunk(
  kind: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk",
  text: string,
  messageId: string,
): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text }, messageId };
}
