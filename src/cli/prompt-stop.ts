/**
 * How a prompt of a log is closed by `sessions show` (render.ts): whether it is open and whether
 * its stop line was drawn. The stop itself is the session model's (session-model/types.ts
 * `PromptStop`), the one every reader gives.
 */

import type { Prompt } from "../session/session-model/session-model.js";

/** What is known about the prompt being rendered, to close it with its stop. */
export interface PromptState {
  open: boolean;
  /** Its stop line was drawn. */
  stopped: boolean;
}

export function closedPrompt(): PromptState {
  return { open: false, stopped: false };
}

/**
 * What every view adds to the stop `interrupted` of a prompt the log leaves without a stop while
 * the session has no live writer: its process ended, and the next open records it (open-work.ts).
 */
export const PROCESS_ENDED_WORDS = "its process ended; recorded when the session is next opened";

/**
 * The stop line of a prompt the session model folded: `[stop: <stop>]`, or that none is known;
 * `processEnded` (no live writer): none is known because its process ended.
 */
export function stopLine(prompt: Prompt | undefined, processEnded = false): string {
  if (prompt?.stop !== undefined) {
    return `[stop: ${prompt.stop}]`;
  }
  return processEnded ? `[stop: interrupted (${PROCESS_ENDED_WORDS})]` : "[no stop recorded]";
}
