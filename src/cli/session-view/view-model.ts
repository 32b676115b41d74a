/**
 * The data a session view draws (built by fold.ts), folded from the events of one `events.jsonl`: prompts, turns
 * (with their tools, times and marks), a per-turn context and cost series, and a summary.
 *
 * Logs of every turnloop version read the same way. Older logs write `assistant.turn_end` right
 * after the reply, before its tools, and `assistant.turn_start` at the first streamed token;
 * newer ones write `turn_start` when the request is sent (optionally with a `purpose`, e.g.
 * `"compaction"`) and `turn_end` after the turn's tools (DESIGN.md, "Principles"). Compaction
 * events come as `{tokensBefore}` / `{tokensBefore, tokensAfter, summary}` or as
 * `{trigger, currentTokens, tokenLimit}` / `{success, preCompactionTokens, postCompactionTokens,
 * messagesRemoved, summaryContent}`. `data` is therefore read field by field, never trusted.
 *
 * Times are milliseconds since the first event (`SessionView.summary.startTime` is its ISO time).
 */

import type { RepairNote, SessionEvent } from "../../events/events.js";
import type { SentAttachment, ShellRun } from "../../session/prompt-attachments.js";

/** One tool call of a turn. `start`/`end` are ms since the session's first event. */
export interface ViewTool {
  toolCallId: string;
  name: string;
  arguments: unknown;
  /** Why the arguments could not be parsed, when they could not. */
  argumentsError?: string;
  start?: number;
  end?: number;
  /** `running`: started (or requested) and not finished when the log ends. */
  status: "success" | "failed" | "denied" | "interrupted" | "running";
  /**
   * A finished call that did not complete, in the session model's words, as every face says it
   * (session-model/tool-call.ts `stateWords`: `failed (exit code 1)`, `timed out after 2 s`,
   * `invalid arguments` …).
   */
  outcome?: string;
  /** What the call took without the time spent waiting for the user's permission answer (ms). */
  durationMs?: number;
  /** A command's exit code; a non-zero one makes the call `failed` (the session model's rule). */
  exitCode?: number;
  /** The signal that killed a command (`SIGTERM`), which makes the call `failed`. */
  signal?: string;
  errorCode?: string;
  errorMessage?: string;
  /** The result the model got, without a command's closing `<exited …>` line (README: for the model only). */
  result?: string;
  /** Images the tool returned (not embedded: the view stays small). */
  imageCount?: number;
  permission?: ViewPermission;
  /**
   * An `edit` call's change as every face draws it (session-model/edit-change.ts): numbered in
   * its file once the log has the file's change (trial 40 F13).
   */
  change?: ViewChangeRow[];
  /**
   * `ran outside the sandbox (your yes)` for a command the sandbox stopped and the user let run
   * outside it (session-model/tool-call.ts `outsideSandboxWords`, trial 40 F8).
   */
  outsideSandbox?: string;
}

/**
 * A row of a change: context (`" "`), removed (`"-"`) or added (`"+"`), or without a marker a
 * note of the diff's (`[… 3 more lines removed]`); `gutter` its line number in the file, padded,
 * and a space (`""` when the rows are not numbered).
 */
export interface ViewChangeRow {
  marker?: " " | "-" | "+";
  gutter: string;
  text: string;
}

/** A permission question and its answer. */
export interface ViewPermission {
  requested: number;
  completed?: number;
  kind: string;
  title: string;
  decision?: string;
  scope?: string;
  rule?: string;
  reason?: string;
}

/**
 * Something that happened at a moment of a turn (while it was open, or between it and the turn
 * before), or of a prompt (before its first turn, or after its last): always in log order.
 */
export interface ViewMark {
  kind:
    | "retry"
    | "permission"
    | "compaction"
    | "error"
    | "abort"
    | "repaired"
    | "resume"
    | "model"
    | "plan"
    | "task_complete"
    | "autopilot_stopped"
    | "instructions"
    | "nudge"
    | "hook"
    | "warning";
  /** ms since the session's first event. */
  at: number;
  /** One line for a tooltip. */
  text: string;
  /** Longer text for the details panel (a compaction summary, a permission reason …). */
  detail?: string;
}

/** Token counts of one turn's request, as `assistant.usage` reported them. */
export interface ViewUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/**
 * One model request (one API call), with the tools of its reply. A failed attempt is a turn of
 * its own (status `failed`, its `assistant.retry` as a `retry` mark) in logs that write
 * `turn_start` when the request is sent; older logs folded it into the next turn's marks.
 */
export interface ViewTurn {
  /** 1-based, in log order: which model request it is. */
  index: number;
  /**
   * The turn it is, as the session model numbers it (session-model/types.ts `Turn.number`, the
   * rule of usage-totals.ts every face counts by): a retry has the number of the attempt it
   * sends again. A turn without its `turn_start` in the log follows the one before.
   */
  number: number;
  /** 1-based: which request of turn {@link number} it is. */
  attempt: number;
  /** How every view titles it: `Turn 3`, or `Turn 3, attempt 2` for a turn sent more than once. */
  title: string;
  turnId: string;
  /** 1-based index of the prompt the turn belongs to. */
  prompt: number;
  /** e.g. `"compaction"`; absent for an ordinary turn. */
  purpose?: string;
  /**
   * The request of a compaction the user started between prompts (the session model's
   * `Turn.betweenPrompts`): every view sets it apart from prompt {@link prompt}, the one before.
   */
  betweenPrompts?: true;
  /** When the request was sent (ms). */
  requestAt: number;
  /** When the first token arrived, where the log tells (older logs: `turn_start`). */
  firstTokenAt?: number;
  /** When the reply was complete (`assistant.message`). */
  lastTokenAt?: number;
  /** `assistant.turn_end`, when written. */
  endAt?: number;
  /** End of everything the turn holds: reply, tools, permission answers (ms). */
  spanEnd: number;
  /** `completed`, `failed`, `error`, `cancelled`, … as written; `open` when never ended. */
  status: string;
  finishReason?: string;
  errorType?: string;
  model?: string;
  usage?: ViewUsage;
  /** USD, as `assistant.usage.cost` said. */
  cost?: number;
  content?: string;
  reasoning?: string;
  interrupted?: boolean;
  tools: ViewTool[];
  marks: ViewMark[];
}

/** One prompt (a `user.message` not written by autopilot). */
export interface ViewPrompt {
  index: number;
  at: number;
  /** The prompt as the user gave it: `!command` lines, the typed text, a line per attachment. */
  content: string;
  /** The `!command`s run before the prompt, whose output the model got with it. */
  commands: ShellRun[];
  /** What the model got with the prompt besides its text: attached files, piped stdin, resources. */
  attachments: SentAttachment[];
  source: string;
  /**
   * Set on a prompt whose `user.message` was on a damaged line (the session model's
   * `Prompt.lost`): its {@link content} says so.
   */
  lost?: true;
  /** ACP stop reason, `error`, or `unfinished` (still running, or cut short). */
  stopReason: string;
  /**
   * Set when the log leaves the prompt without a stop and the session has no live writer: its
   * {@link stopReason} is `interrupted`, which the next open of the session records (fold.ts).
   */
  processEnded?: true;
  /** Marks before the prompt's first turn (all of them, for a prompt without turns). */
  marks: ViewMark[];
  /** Marks after the prompt's last turn ended, before the next prompt: a resume, an error … */
  closingMarks: ViewMark[];
}

/** A compaction, from its start/complete pair. */
export interface ViewCompaction {
  at: number;
  /** The turn current when it completed (1-based), or 0 before any turn. */
  afterTurn: number;
  trigger?: string;
  success?: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  messagesRemoved?: number;
  summary?: string;
}

/** Header numbers. Token totals add up every `assistant.usage`. */
export interface ViewSummary {
  sessionId?: string;
  cwd?: string;
  producerVersion?: string;
  /** ISO-8601 of the first event. */
  startTime?: string;
  models: string[];
  prompts: number;
  /** Turns by the rule every face counts by (usage-totals.ts): a retried attempt is not one. */
  turns: number;
  /** Model requests: every turn's, retried attempts included. */
  requests: number;
  /** tool name → outcome (`success`, `failed`, `denied`, …) → count. */
  toolCalls: Record<string, Record<string, number>>;
  tokens: Required<ViewUsage>;
  /** USD total of the requests that report a cost; absent when none does. */
  cost?: number;
  /** Requests that report a cost. */
  costedRequests: number;
  /** First to last event (ms). */
  wallMs: number;
  /** Damage the reader skipped, plus repairs that earlier opens recorded in `session.resume`. */
  repaired: Array<RepairNote & { when: "now" | "on resume" }>;
  /** The last turn or tool has no end: the session may still be running. */
  running: boolean;
}

/** Everything the page, the Markdown and the JSON export show. */
export interface SessionView {
  summary: ViewSummary;
  prompts: ViewPrompt[];
  turns: ViewTurn[];
  compactions: ViewCompaction[];
}

/** An event with the 1-based line it was read from. */
export interface NumberedEvent {
  event: SessionEvent;
  line: number;
}
