/**
 * A session as a plain-text transcript, for `turnloop sessions show <id>`. No colours: the CLI
 * may add them.
 *
 * Shape (every prompt ends with a stop line):
 * ```
 * session <id> · <model> · <cwd> · started <time>
 *
 * > the user's prompt
 * attached notes.md (the `@file`s it attached, when it did)
 *   (thinking) the first line of the reasoning…
 * the assistant's text
 * → bash(command: "npm test") ✗ failed (exit code 1)
 *     … 12 earlier lines (turnloop sessions export <id> --format markdown shows all)
 *     the last lines of a failed command's output (the first lines of any other result)
 * [stop: end_turn]
 * ```
 */

import { durationWords } from "../events/durations.js";
import { terminalText } from "../events/errors.js";
import { isSdkAppEvent } from "../events/event-categories.js";
import type { SessionEvent, SessionEventOf, UserMessageData } from "../events/events.js";
import { isPromptInterrupted } from "../session/interrupted-work.js";
import { attachedFilesLine, givenPrompt, ranLines } from "../session/prompt-attachments.js";
import {
  manualCompactionWords,
  type Prompt,
  SessionFold,
} from "../session/session-model/session-model.js";
import { LOST_PROMPT_WORDS } from "../session/session-store.js";
import { compactionLines } from "./event-notes.js";
import { idleReopens, repairsBeforeReopens } from "./idle-reopens.js";
import { planChecklist } from "./plan-checklist.js";
import { closedPrompt, type PromptState, stopLine } from "./prompt-stop.js";
import { toolResultLines, unansweredCallLine } from "./render-tool-call.js";
import { abbreviate, firstLine, foldedPrompt, plural, trimTrailingNewlines } from "./text-lines.js";

const REASONING_LENGTH = 100;
const NUDGE_LENGTH = 100;

interface RenderState {
  lines: string[];
  /** The `session.resume` events of reopens not drawn (idle-reopens.ts). */
  idleReopens: ReadonlySet<SessionEvent>;
  /** The session model: a tool call's outcome and exit code are read from it. */
  fold: SessionFold;
  /** Tool calls of the open prompt that have no result yet. */
  pendingCalls: Set<string>;
  /** Error lines of a `session.error` that came while calls were pending: drawn after them. */
  heldErrors: string[];
  prompt: PromptState;
  /**
   * The session model's prompt being answered before the event drawn now (a `user.message`
   * starts the next one): its `stop` is the stop line's.
   */
  answered: Prompt | undefined;
  /** The model of the log's last `session.model_change`, if any. */
  currentModel: string | undefined;
}

/** Options of {@link renderConversation}. */
export interface ConversationOptions {
  /** Whether `session.start` gets its line (default true); a face whose banner says it, not. */
  startLine?: boolean;
  /**
   * Whether the log's last `session.resume` is the open of the face drawing it (default false):
   * then it is drawn though nothing follows it yet (idle-reopens.ts).
   */
  openNow?: boolean;
  /** No live writer (the store's `holder`): a last prompt without a stop ended with its process. */
  processEnded?: boolean;
}

/**
 * Renders `events` (persisted ones; ephemeral deltas are ignored) as text, one line per item,
 * ending with `\n` unless empty. Tool calls without a result are listed as such when their prompt
 * ends. Each prompt's stop line is the session model's stop (session-model/types.ts
 * `PromptStop`: the recorded `stopReason`, an `abort`, a `session.error`, …); when the log does
 * not say it (a crash before its turn ended), the line says so.
 */
export function renderConversation(
  events: readonly SessionEvent[],
  { startLine = true, openNow = false, processEnded = false }: ConversationOptions = {},
): string {
  const state: RenderState = {
    lines: [],
    idleReopens: idleReopens(events, openNow),
    fold: new SessionFold(),
    pendingCalls: new Set(),
    heldErrors: [],
    prompt: closedPrompt(),
    answered: undefined,
    currentModel: events.findLast((event) => event.type === "session.model_change")?.data.newModel,
  };
  // The work a reopen closed is drawn in its prompt, before that reopen (idle-reopens.ts).
  for (const event of repairsBeforeReopens(events, (event) => event)) {
    state.fold.apply(event);
    if (startLine || event.type !== "session.start") {
      renderEvent(state, event);
    }
    state.answered = state.fold.answeredPrompt;
  }
  closePrompt(state, false, processEnded);
  // Drawn on a terminal: the model's and the commands' text without control sequences.
  return state.lines.length === 0 ? "" : `${terminalText(state.lines.join("\n"))}\n`;
}

/** Events that end or interrupt a prompt, or report on it: one line each. */
type OutcomeEvent = Extract<
  SessionEvent,
  {
    type:
      | "assistant.retry"
      | "session.plan_updated"
      | "session.instructions_loaded"
      | "session.task_complete"
      | "session.autopilot_stopped"
      | "session.error"
      | "abort"
      | "session.compaction_complete"
      | "session.warning"
      | "session.idle";
  }
>;

function renderEvent(state: RenderState, event: SessionEvent): void {
  if (event.type === "session.model_change") {
    renderModelChange(state, event.data);
    return;
  }
  if (isSdkAppEvent(event)) {
    return;
  }
  switch (event.type) {
    case "session.start": {
      const { sessionId, model, cwd, startTime } = event.data;
      // The model a resume uses: the last switch's, else the start's.
      const current = state.currentModel ?? model;
      const models = current === model ? model : `${current} (started on ${model})`;
      state.lines.push(`session ${sessionId} · ${models} · ${cwd} · started ${startTime}`);
      return;
    }
    case "session.resume":
      renderResume(state, event);
      return;
    case "session.compaction_start":
      headManualCompaction(state, event.type);
      return;
    case "user.message":
      renderUserMessage(state, event.data);
      return;
    case "assistant.message":
      renderAssistantMessage(state, event.data);
      return;
    case "tool.execution_start":
      state.pendingCalls.add(event.data.toolCallId);
      return;
    case "tool.execution_complete":
      renderToolResult(state, event.data);
      releaseHeldErrors(state);
      return;
    case "assistant.turn_start":
      renderLostPrompt(state);
      return;
    case "assistant.turn_end":
    case "assistant.usage":
    case "assistant.message_delta":
    case "assistant.reasoning_delta":
    case "assistant.tool_call_start":
    case "tool.execution_running":
    case "tool.execution_partial_result":
    case "tool.execution_progress":
    case "permission.requested":
    case "permission.completed":
    case "hook.start":
    case "hook.end":
    case "session.mcp_server_status_changed":
    case "session.info":
      return;
    default:
      renderOutcome(state, event);
  }
}

/** A model switch; between prompts (the session model's `betweenPrompts`) after the stop line. */
function renderModelChange(
  state: RenderState,
  data: SessionEventOf<"session.model_change">["data"],
) {
  if (state.fold.betweenPrompts) {
    closePrompt(state);
  }
  state.lines.push(`model: ${data.previousModel ?? "?"} → ${data.newModel}`);
}

function renderResume(state: RenderState, event: SessionEventOf<"session.resume">): void {
  // The results and turn ends this reopen wrote are drawn before it (repairsBeforeReopens); a
  // call still open here gets its result later in the log: it is drawn there, once.
  const open = new Set(state.pendingCalls);
  state.pendingCalls.clear();
  // A prompt whose turn this reopen closed stopped there (session/open-work.ts): the session
  // model's `interrupted`, from the turn end the reopen wrote.
  closePrompt(state);
  state.pendingCalls = open;
  if (state.idleReopens.has(event)) {
    return;
  }
  const skipped = event.data.repaired.length;
  const note = skipped === 0 ? "" : ` (skipped ${skipped} damaged ${plural(skipped, "line")})`;
  state.lines.push("", `— resumed ${event.data.resumeTime}${note}`);
}

function renderOutcome(state: RenderState, event: OutcomeEvent): void {
  const { lines } = state;
  switch (event.type) {
    case "assistant.retry": {
      const { attempt, delayMs, errorMessage } = event.data;
      lines.push(`↻ retry ${attempt} in ${durationWords(delayMs)}: ${firstLine(errorMessage)}`);
      return;
    }
    case "session.plan_updated":
      // The plan as the fold holds it, with the marks every terminal face uses.
      lines.push("plan:", ...planChecklist(state.fold.model.plan).map((line) => `  ${line}`));
      return;
    case "session.instructions_loaded":
      lines.push(instructionsLine(event.data));
      return;
    case "session.task_complete": {
      const outcome = event.data.success ? "" : " (unsuccessful)";
      lines.push(`task complete${outcome}: ${event.data.summary}`);
      return;
    }
    case "session.autopilot_stopped":
      lines.push(
        `autopilot stopped after ${event.data.continues} ${plural(event.data.continues, "continue")}: the task was not marked complete`,
      );
      return;
    case "session.error": {
      const { errorType, statusCode, message } = event.data;
      const status = statusCode === undefined ? "" : `, ${statusCode}`;
      const to = state.pendingCalls.size === 0 ? lines : state.heldErrors;
      // A reopen's end of a prompt whose process ended: an interruption, not the server's error.
      to.push(
        isPromptInterrupted(event.data) ? message : `error (${errorType}${status}): ${message}`,
      );
      return;
    }
    case "abort":
      lines.push(`aborted: ${event.data.reason}`);
      return;
    case "session.compaction_complete":
      headManualCompaction(state, event.type);
      lines.push(...compactionLines(event.data));
      return;
    case "session.warning":
      lines.push(`warning: ${event.data.message}`);
      return;
    case "session.idle":
      // An older log's idle: its stop is the session model's, as every stop is.
      closePrompt(state, true);
      return;
    default:
      ignoreUnknown(event);
  }
}

/**
 * A compaction the user started between prompts (the session model's `betweenPrompts`) is set
 * apart from the prompt before it: that prompt's stop line, then a heading, as every view heads it.
 * Headed at its start, or at its end when the log lost its start.
 */
function headManualCompaction(
  state: RenderState,
  at: "session.compaction_start" | "session.compaction_complete",
): void {
  const compaction = state.fold.model.compactions.at(-1);
  const headed = at === "session.compaction_complete" && compaction?.startedAt !== undefined;
  if (compaction?.betweenPrompts !== true || headed) {
    return;
  }
  closePrompt(state);
  state.lines.push("", `— compaction · ${manualCompactionWords()}`);
}

/** `instructions: AGENTS.md, appended text (N bytes)`, or `instructions: none`. */
function instructionsLine(data: SessionEventOf<"session.instructions_loaded">["data"]): string {
  const { files, appendedBytes } = data;
  const appended = appendedBytes === undefined ? [] : [`appended text (${appendedBytes} bytes)`];
  const used = [
    ...files.map(
      (file) =>
        `${file.path}${file.truncated ? (file.bytes === 0 ? " (left out)" : " (cut)") : ""}`,
    ),
    ...appended,
  ];
  return `instructions: ${used.length === 0 ? "none" : used.join(", ")}`;
}

/** Keeps the switch exhaustive at compile time while tolerating unknown types at run time. */
function ignoreUnknown(_event: never): void {}

function renderUserMessage(state: RenderState, data: UserMessageData): void {
  const { content, source } = data;
  if (source !== "user") {
    // Nudges and hook messages continue the current prompt; they are long and ours, so abbreviate.
    state.lines.push(`> [${source}] ${abbreviate(firstLine(content), NUDGE_LENGTH)}`);
    return;
  }
  closePrompt(state);
  if (state.lines.length > 0) {
    state.lines.push("");
  }
  // As given: the `!command`s as they ran, then the prompt and what was attached to it, never
  // the text the model got (session/prompt-attachments.ts).
  const { runs, text, attached } = givenPrompt(data);
  state.lines.push(...runs.flatMap(ranLines));
  for (const line of [...foldedPrompt(trimTrailingNewlines(text)), ...attached]) {
    state.lines.push(`> ${line}`.trimEnd());
  }
  // The `@file`s it attached, named under it as the interactive face did (the session model's).
  const files = attachedFilesLine(state.fold.model.prompts.at(-1)?.attachedFiles ?? []);
  if (files !== undefined) {
    state.lines.push(files);
  }
  state.prompt = { ...closedPrompt(), open: true };
}

/** A turn answering a prompt the log lost (the session model's `Prompt.lost`): its place. */
function renderLostPrompt(state: RenderState): void {
  const prompt = state.fold.answeredPrompt;
  if (prompt?.lost === true && prompt !== state.answered) {
    renderUserMessage(state, { content: `(${LOST_PROMPT_WORDS})`, source: "user" });
  }
}

function renderAssistantMessage(
  state: RenderState,
  message: SessionEventOf<"assistant.message">["data"],
): void {
  const reasoning = message.reasoning?.trim() ?? "";
  if (reasoning !== "") {
    state.lines.push(`  (thinking) ${abbreviate(firstLine(reasoning), REASONING_LENGTH)}`);
  }
  const content = trimTrailingNewlines(message.content);
  if (content.trim() !== "") {
    state.lines.push(...content.split(/\r?\n/));
  }
  for (const request of message.toolRequests) {
    state.pendingCalls.add(request.toolCallId);
  }
}

/** A call's result, under the call's line (render-tool-call.ts). */
function renderToolResult(
  state: RenderState,
  result: SessionEventOf<"tool.execution_complete">["data"],
): void {
  const toolCall = state.fold.toolCall(result.toolCallId);
  const requested = state.pendingCalls.delete(result.toolCallId);
  const sessionId = state.fold.model.sessionId;
  state.lines.push(...toolResultLines(toolCall, result, requested, sessionId));
}

/**
 * Ends the open prompt: lists its calls that never got a result, then its stop line, the session
 * model's stop (session-model/types.ts `PromptStop`). `late`: a stop said after the prompt was
 * closed (an older log's `session.idle` after a reopen) still gets its line, once.
 * `processEnded`: the session has no live writer (see `ConversationOptions`).
 */
function closePrompt(state: RenderState, late = false, processEnded = false): void {
  const { prompt } = state;
  if (!prompt.open || prompt.stopped) {
    releaseHeldErrors(state, true);
    if (late && !prompt.stopped && state.answered?.stop !== undefined) {
      state.lines.push(stopLine(state.answered));
      prompt.stopped = true;
    }
    return;
  }
  for (const toolCallId of state.pendingCalls) {
    const toolCall = state.fold.toolCall(toolCallId);
    if (toolCall !== undefined) {
      state.lines.push(unansweredCallLine(toolCall));
    }
  }
  state.pendingCalls.clear();
  releaseHeldErrors(state);
  state.lines.push(stopLine(state.answered, processEnded));
  prompt.stopped = true;
}

/** Draws the held error lines once no call is pending (or `now`), in log order after the calls. */
function releaseHeldErrors(state: RenderState, now = false): void {
  if (state.heldErrors.length > 0 && (now || state.pendingCalls.size === 0)) {
    state.lines.push(...state.heldErrors.splice(0));
  }
}
