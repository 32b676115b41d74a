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

/** The stop line of a prompt the session model folded: `[stop: <stop>]`, or that none is known. */
export function stopLine(prompt: Prompt | undefined): string {
  return prompt?.stop === undefined ? "[no stop recorded]" : `[stop: ${prompt.stop}]`;
}
