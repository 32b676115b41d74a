/** A prompt's text in the session view: as the user gave it, and what the model got with it. */

import type { UserMessageData } from "../../events/events.js";
import { givenPrompt, sentAttachments, typedPrompt } from "../../session/prompt-attachments.js";
import { type Fields, text } from "./fields.js";
import type { ViewPrompt } from "./view-model.js";

/**
 * A prompt as the user gave it (session/prompt-attachments.ts): its `!command`s, its text and a
 * line naming each attachment, never the text the model got.
 */
export function promptShown(data: Fields): string {
  const content = text(data.content);
  if (content === undefined) {
    return "";
  }
  // The log reader checked the event's shape (session/log-damage.ts).
  const { runs, text: typed, attached } = givenPrompt(data as unknown as UserMessageData);
  return [...runs.map((run) => `!${run.command}`), typed, ...attached].join("\n\n");
}

/**
 * What the model got with a prompt besides the prompt as given: the output of its `!command`s
 * and its attachments (session/prompt-attachments.ts), for an export to show what the model saw.
 */
export function promptSent(data: Fields): Pick<ViewPrompt, "commands" | "attachments"> {
  const content = text(data.content);
  if (content === undefined) {
    return { commands: [], attachments: [] };
  }
  const message = data as unknown as UserMessageData;
  const commands = message.contentBlocks === undefined ? typedPrompt(content).runs : [];
  return { commands, attachments: sentAttachments(message) };
}
