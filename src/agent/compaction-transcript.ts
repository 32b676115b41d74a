import type { HistoryMessage } from "../llm/provider.js";
import { estimateTextTokens } from "./token-estimate.js";

/**
 * What the summary request asks for, in our words: the sections a coding agent needs to go on
 * working from the summary alone.
 */
export const COMPACTION_SYSTEM_PROMPT = `You write the working summary of a coding agent's conversation. The agent will continue the work from your summary and the few most recent messages only, so leave out nothing it needs and invent nothing.

Write plain text under these headings:
Task: what the user asked for (their words where they matter) and any constraints they set.
Decisions: what was decided and why.
Files: every file read, created or changed, with its path, what changed and its current state.
Commands: commands run and what they showed (results, errors, test outcomes that matter).
Open problems: errors, failing checks, unanswered questions.
Next steps: what remains to do, in order.

Be specific: paths, names, numbers, exact error messages. Do not call tools; answer with the summary only.`;

/** How much of each kind of message goes into the summary request (characters). */
export interface TranscriptLimits {
  /** Longest tool result; longer ones keep their start and end. */
  toolResultCharacters: number;
  /** Longest user or assistant text, tool arguments included. */
  messageCharacters: number;
  /** Estimated tokens the whole transcript may take; the oldest entries go first. */
  budgetTokens: number;
}

/**
 * The part of the conversation to summarise, as one plain-text transcript the summary request
 * can carry on any wire (no tool-call structure to keep paired). Oversized entries are cut to
 * their start and end (case 33 C), and when the whole is still over `budgetTokens` the oldest
 * entries after a leading summary are left out with a note (case 33 B).
 */
export function buildTranscript(
  messages: readonly HistoryMessage[],
  isSummary: (message: HistoryMessage) => boolean,
  limits: TranscriptLimits,
): string {
  const entries = messages.map((message) => entryOf(message, isSummary(message), limits));
  const first = messages[0];
  const pinned = first !== undefined && isSummary(first) ? 1 : 0;
  let total = entries.reduce((sum, entry) => sum + estimateTextTokens(entry), 0);
  let omitted = 0;
  while (total > limits.budgetTokens && pinned + omitted < entries.length - 1) {
    total -= estimateTextTokens(entries[pinned + omitted] ?? "");
    omitted++;
  }
  const kept = [
    ...entries.slice(0, pinned),
    ...(omitted === 0 ? [] : [`[${omitted} earlier messages left out to fit the request]`]),
    ...entries.slice(pinned + omitted),
  ];
  const text = kept.join("\n\n");
  // A single entry larger than the budget (a huge user message) is cut as a whole.
  return cut(text, limits.budgetTokens * 4);
}

function entryOf(message: HistoryMessage, summary: boolean, limits: TranscriptLimits): string {
  switch (message.role) {
    case "user":
      return summary
        ? `[summary of the conversation before]\n${message.content}`
        : `[user]\n${cut(message.content, limits.messageCharacters)}`;
    case "tool": {
      const status = message.isError ? " (failed)" : "";
      return `[result of ${message.toolName} ${message.toolCallId}${status}]\n${cut(message.content, limits.toolResultCharacters)}`;
    }
    case "assistant": {
      const parts = message.content.trim() === "" ? [] : [message.content];
      for (const call of message.toolCalls) {
        const input = call.rawArguments ?? JSON.stringify(call.arguments);
        parts.push(`called ${call.name} ${call.toolCallId} with ${input}`);
      }
      return `[assistant]\n${cut(parts.join("\n"), limits.messageCharacters)}`;
    }
  }
}

/** `text` if short enough, else its start and end around a note of what was cut. */
export function cut(text: string, characters: number): string {
  if (text.length <= characters) {
    return text;
  }
  const head = Math.floor(characters * 0.75);
  const tail = Math.max(0, characters - head);
  const removed = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${removed} characters cut …]\n${tail === 0 ? "" : text.slice(-tail)}`;
}
