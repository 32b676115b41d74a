import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";

/** Characters of a prompt kept for a session title (ACP `session_info_update`, `session/list`). */
const TITLE_LENGTH = 80;

/**
 * The text the model gets for an ACP v1 `session/prompt` (content blocks, in order). Text blocks
 * as they are; `resource_link`s as a line naming the file (a path for `file:` URIs, so the model can
 * `view` it); embedded `resource`s as context blocks with their text; images and audio, which are
 * not passed to the model yet, as a short note so the model knows something was attached.
 */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts = blocks.map(blockText).filter((part) => part !== "");
  return parts.join("\n\n");
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
      return `[An image was attached (${details}); images are not passed to the model yet.]`;
    }
    case "audio": {
      const details = `${block.mimeType}, ${base64Bytes(block.data)} bytes`;
      return `[An audio clip was attached (${details}); audio is not passed to the model.]`;
    }
  }
}

function embeddedResourceText(resource: acp.EmbeddedResourceResource): string {
  const location = displayUri(resource.uri);
  if ("text" in resource) {
    const body = resource.text.endsWith("\n") ? resource.text : `${resource.text}\n`;
    return `<context source="${location}">\n${body}</context>`;
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

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A session title from the first prompt: one line, at most 80 characters (no model call). */
export function titleFrom(text: string): string {
  const codePoints = Array.from(text.replace(/\s+/g, " ").trim());
  if (codePoints.length <= TITLE_LENGTH) {
    return codePoints.join("");
  }
  return `${codePoints.slice(0, TITLE_LENGTH - 1).join("")}…`;
}
