import type { PromptOutcome } from "../../agent/loop.js";
import type { SessionEvent } from "../../events/events.js";
import type { AskPermission } from "../../permissions/permission-decision.js";
import type { SessionSummary } from "../../session/session-store.js";
import { failedForNow, failedPromptNote } from "../event-notes.js";

/** How the conversation is drawn: the full-screen TUI or plain lines (TERM=dumb). */
export interface ConversationView {
  /** Draws a session's history from its log (before its live events). */
  history(events: readonly SessionEvent[]): void;
  /** Draws a live session event. */
  show(event: SessionEvent): void;
  /** A line of the face's own. */
  note(text: string, style?: "plain" | "dim" | "error"): void;
  /** Starts drawing another session: forget what is shown. */
  clear(): void;
  /** The model, mode, usage or busy state changed. */
  statusChanged(): void;
  ask: AskPermission;
  /** A yes/no question (`lines`, the last one the question itself); resolves true for yes. */
  confirm(lines: readonly string[]): Promise<boolean>;
  /** @returns the chosen session id, or `undefined` when dismissed. */
  pickSession(sessions: readonly SessionSummary[], title: string): Promise<string | undefined>;
  /** A `!command` starts: draws its `$ command` line; @returns the view of its output. */
  shellRun(command: string): ShellRunView;
  /**
   * Puts `text`, an input that was not sent (a prompt too large for the model), back in the input
   * box to edit, before what was typed there since; a face with no box to edit leaves it out.
   */
  restoreInput?(text: string): void;
}

/** A running `!command`'s output on a face. */
export interface ShellRunView {
  /**
   * The output so far, while the command runs: plain text, past the runner's limit its head and
   * tail around a line counting the line breaks cut (tools/command-runner.ts `onOutput`).
   */
  progress(output: string): void;
  /** The command ended; `output` is all of it that is shown (without its last line break). */
  end(output: string): void;
}

/**
 * What ends a prompt that failed once stored (event-notes.ts `failedForNow`: the model's
 * errors after the retries, a broken stream): how to try it again, for the controller's ending
 * (the full screen's status row until the next key, a line of its own on plain lines); a face with
 * an input box ({@link ConversationView.restoreInput}) also has ↑ to bring the message back.
 * Undefined for any other outcome.
 */
export function failedPromptEnding(
  view: ConversationView | undefined,
  outcome: PromptOutcome,
): string | undefined {
  if (!failedForNow(outcome)) {
    return undefined;
  }
  return failedPromptNote({ kind: view?.restoreInput === undefined ? "lines" : "box" });
}
