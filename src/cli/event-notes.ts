import type { PromptOutcome } from "../agent/loop.js";
import { abortNote, markedText, stoppedNote } from "../events/errors.js";
import type { ErrorType, SessionEventOf, StopReason } from "../events/events.js";

export { abortNote };

/**
 * The one-line notes both terminal faces (`-p`'s renderer, terminal-renderer.ts, and the
 * interactive transcript, interactive/transcript.ts) write for events that are not the reply: the
 * same words on either face.
 */

/**
 * `stopped: …` for a prompt that ended before its answer was complete because a limit or the
 * model stopped it (events/errors.ts `stoppedNote`'s words), as `-p` says it on stderr; undefined
 * for a finished answer (`end_turn`) and a cancel (which the `abort` line says).
 * `why`, when given, follows: the repetition guard's reason, since `max_turn_requests` alone
 * reads as `--max-turns`. Without it, `max_turn_requests` with the limit `maxTurns` (model
 * requests) names it and how to go on where the note is read (`goOn`, `-p`'s words by default):
 * `stopped: reached the turn limit (1); continue with --continue or raise --max-turns`; a reply
 * cut at the output limit says how to have the model go on (`goOn.outputLimit`).
 */
export function stopNote(
  stopReason: StopReason,
  why?: string,
  maxTurns?: number,
  goOn: GoOn = PROMPT_GO_ON,
): string | undefined {
  if (stopReason === "max_turn_requests" && why === undefined && maxTurns !== undefined) {
    return `stopped: reached the turn limit (${maxTurns}); ${goOn.turnLimit}`;
  }
  const note = stoppedNote(stopReason, why);
  return stopReason === "max_tokens" && note !== undefined ? `${note}; ${goOn.outputLimit}` : note;
}

/** How to go on after a face's prompt stopped at a limit: the turn limit, the output limit. */
export interface GoOn {
  turnLimit: string;
  outputLimit: string;
}

/** How to go on after `-p` stopped at a limit: another run. */
const PROMPT_GO_ON: GoOn = {
  turnLimit: "continue with --continue or raise --max-turns",
  outputLimit: "its text so far is kept: continue with --continue to have the model go on",
};

/**
 * How to go on after a prompt of the interactive session stopped at a limit: the turn limit
 * counts the model requests of one prompt, so the next message gets as many again; a reply cut at
 * the output limit goes on from the next message.
 */
export const INTERACTIVE_GO_ON: GoOn = {
  turnLimit: "send a message to go on",
  outputLimit: "send a message to have the model go on",
};

/**
 * {@link stopNote} for how a prompt ended, with `goOn` said after the turn limit; undefined after
 * an error (its own line says it).
 */
export function outcomeNote(
  outcome: PromptOutcome,
  maxTurns: number,
  goOn?: GoOn,
): string | undefined {
  return "stopReason" in outcome
    ? stopNote(outcome.stopReason, outcome.repetition, maxTurns, goOn)
    : undefined;
}

/**
 * Whether `outcome` is a prompt that failed for good once it was stored, for a reason a later try
 * may not meet: the model's server kept answering 429, 5xx or overloaded after the retries, the
 * account's quota was spent (until it is paid or raised), the network failed (a stream broken after text was shown, nothing listening, no answer in time).
 * Its message stays in the session's conversation without an answer, so the next prompt of the
 * session goes on from it. Not a refused key, a bad request or setting, nor a prompt refused
 * before it was stored (too large for the window: the face keeps it) or one the store could not
 * take: trying again changes nothing there.
 */
export function failedForNow(outcome: PromptOutcome): boolean {
  return (
    "error" in outcome &&
    outcome.promptTooLarge === undefined &&
    PASSING_FAILURES.has(outcome.error.errorType)
  );
}

/**
 * The failures {@link failedForNow} counts: those llm/errors.ts classifies as retryable, and a
 * spent quota (not retried, but gone once the account is paid or its limit raised).
 */
const PASSING_FAILURES: ReadonlySet<ErrorType> = new Set<ErrorType>([
  "rate_limit",
  "quota",
  "overloaded",
  "server",
  "network",
  "stalled",
]);

/**
 * How to try a {@link failedForNow} prompt again where the note is read: `-p` with the session's id
 * (as a cancel's `resume with --resume <id>`), the full screen's status row (its input box's ↑
 * brings back what was sent, as in Claude Code and Codex; short enough for the row), or plain
 * lines. Sending "continue" goes on from the kept message; sending the message again repeats it
 * in the conversation.
 */
export function failedPromptNote(
  face: { kind: "prompt"; sessionId: string } | { kind: "box" | "lines" },
): string {
  switch (face.kind) {
    case "prompt":
      return `the prompt is kept in the session: to try again, turnloop -p --resume ${face.sessionId} "continue"`;
    case "box":
      return 'press ↑ to edit and resend, or send "continue" to try again';
    case "lines":
      return 'the message is kept: send "continue" to try again';
  }
}

/**
 * `always allowed in this session: <rule>` for an "always" answer (README), else undefined; the
 * rule's control characters drawn as code points (events/errors.ts markedText), as the question
 * showed it.
 */
export function alwaysRuleNote(
  data: SessionEventOf<"permission.completed">["data"],
): string | undefined {
  const { decision, scope, rule } = data;
  return decision === "allowed" && scope === "session" && rule !== undefined
    ? `always allowed in this session: ${markedText(rule)}`
    : undefined;
}

/**
 * `compacted the conversation (<trigger>): <before> → <after> tokens`, or `compaction failed
 * (<trigger>): <error>` when it failed (`failed` says which, for a face that colours failures),
 * or `nothing was compacted (<trigger>): …` when there was nothing older than the latest turn.
 */
export function compactionNote(data: SessionEventOf<"session.compaction_complete">["data"]): {
  text: string;
  failed: boolean;
} {
  const { success, preCompactionTokens, postCompactionTokens, trigger, error } = data;
  if (!success && error?.startsWith("nothing to compact") === true) {
    // agent/compaction.ts's words when the history has nothing older than its latest turn: not a
    // failure the user must act on.
    return { text: `nothing was compacted (${trigger}): ${error}`, failed: false };
  }
  return success
    ? {
        text: `compacted the conversation (${trigger}): ${preCompactionTokens} → ${postCompactionTokens ?? "?"} tokens`,
        failed: false,
      }
    : { text: `compaction failed (${trigger}): ${error ?? "unknown error"}`, failed: true };
}

/**
 * What `sessions show` writes of a compaction's end (render.ts): `compacted: <before> → <after>
 * tokens` and, on success, the summary the model works from on, each of its lines indented two
 * spaces under `summary:` (as the Markdown export and the HTML view show it); a cancelled one
 * (agent/compaction.ts records it as failed with the error `cancelled`) or a failed one in a line.
 */
export function compactionLines(
  data: SessionEventOf<"session.compaction_complete">["data"],
): string[] {
  const { success, preCompactionTokens, postCompactionTokens, error, summaryContent } = data;
  if (!success) {
    return [
      error === "cancelled"
        ? "compaction cancelled: the conversation is unchanged"
        : `compaction failed: ${error ?? "unknown error"}`,
    ];
  }
  const summary = summaryContent?.split("\n").map((line) => `  ${line}`) ?? [];
  return [
    `compacted: ${preCompactionTokens} → ${postCompactionTokens ?? "?"} tokens`,
    ...(summary.length === 0 || summaryContent === "" ? [] : ["summary:", ...summary]),
  ];
}
