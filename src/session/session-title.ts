/** A session's title as apps and editors list it, in the words the CLI's listing uses. */

import { LOST_PROMPT_WORDS, type SessionSummary, summaryLine } from "./session-store.js";

/**
 * The title apps and editors get for a session (ACP's `title`, the name `session.name.get` falls
 * back to): the name it was given (`session.title_changed`), else its {@link firstPromptTitle}.
 */
export function sessionTitle(
  summary: Pick<SessionSummary, "firstPrompt" | "name" | "problem" | "turns">,
): string | null {
  return summary.name ?? firstPromptTitle(summary);
}

/**
 * A session's first prompt as its title (the SDK's `summary`, beside the name given as `name`):
 * its first prompt, else `({@link LOST_PROMPT_WORDS})` when it has turns, as {@link summaryLine}
 * says it; else none (nothing asked yet, or a log that cannot be read: `problem` says why).
 */
export function firstPromptTitle(
  summary: Pick<SessionSummary, "firstPrompt" | "problem" | "turns">,
): string | null {
  if (summary.firstPrompt !== null || summary.problem !== undefined || summary.turns === 0) {
    return summary.firstPrompt;
  }
  return `(${LOST_PROMPT_WORDS})`;
}
