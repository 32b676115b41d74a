/** Text the server adds to what the loop gets: the app's system message and attachments. */

import type { SendParams } from "./params.js";

/** turnloop's system prompt with the app's `systemMessage`: appended, or replacing it. */
export function systemPromptWith(
  base: string,
  message: { mode?: string | undefined; content?: string | undefined } | undefined,
): string {
  const content = message?.content;
  if (content === undefined || content === "") {
    return base;
  }
  return message?.mode === "replace" ? content : `${base}\n\n${content}`;
}

/**
 * The prompt with its attachments named after it: files and folders by path (the model reads them
 * with its tools), selections with their text.
 */
export function withAttachments(prompt: string, attachments: SendParams["attachments"]): string {
  if (attachments === undefined || attachments.length === 0) {
    return prompt;
  }
  const lines = attachments.map((attachment) =>
    attachment.type === "selection"
      ? `Selection from ${attachment.filePath}:\n${attachment.text}`
      : `${attachment.type === "directory" ? "Directory" : "File"}: ${attachment.path}`,
  );
  return `${prompt}\n\nAttached:\n${lines.join("\n")}`;
}
