/**
 * Notes the model's view (history.ts) holds that no event wrote as such: in place of a prompt the
 * log lost, and before the prompt after a reply that was cut off.
 */

import type { SessionEventData } from "../events/events.js";

/**
 * Sent in place of a prompt the log lost (a conversation turn started while no prompt was being
 * answered: its `user.message` was on a damaged line), so that the view never opens with the
 * model's reply, which Anthropic's Messages API rejects, nor joins two prompts' replies.
 */
export const LOST_PROMPT_TEXT =
  "[A message of the user was here, but it was lost: its line in the session log was damaged and could not be read.]";

/** The note for a prompt whose turn was interrupted before the model's reply was logged. */
export const NO_REPLY_NOTE =
  "[Your reply to the previous message was interrupted before any of it was recorded: the process running it ended. That message got no answer.]";

/**
 * The note a reply cut off mid-stream leaves for the model, at the start of the next user
 * message, so that it does not take its partial reply for a finished one (Claude Code adds
 * "[Request interrupted by user]" the same way); `undefined` for a reply that finished.
 * The log keeps the user's words as written: the note is only in the model's view.
 */
export function interruptionNote(data: SessionEventData["assistant.message"]): string | undefined {
  if (data.interrupted !== true) {
    return undefined;
  }
  return data.error === undefined
    ? "[Your previous reply was interrupted by the user before it finished.]"
    : `[Your previous reply broke off before it finished: ${data.error.message}]`;
}
