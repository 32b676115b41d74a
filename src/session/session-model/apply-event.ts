/** How each event type changes the session model (session-model.ts). */

import type { SessionEvent, SessionEventData } from "../../events/events.js";
import type { FoldState } from "./fold-state.js";
import { turnEnd, turnStart, usage } from "./model-requests.js";
import type { ToolCall } from "./tool-call.js";
import type { Change, Compaction } from "./types.js";

const NONE: Change = { kind: "none" };

/**
 * Applies one event at time `at` (ms since the epoch). Exhaustive: a new event type is placed here.
 * The stop rule folds it first: a turn starting between prompts answers a lost prompt (prompt-stops.ts).
 */
export function applyEvent(state: FoldState, event: SessionEvent, at: number): Change {
  state.stops.apply(event, (given) => state.newPrompt(given, at));
  switch (event.type) {
    case "session.start":
    case "session.resume":
    case "session.model_change":
    case "user.message":
    case "session.plan_updated":
    case "session.idle":
    case "session.instructions_loaded":
      return applySessionEvent(state, event, at);
    case "assistant.turn_start":
      return turnStart(state, event, at);
    case "assistant.turn_end":
      return turnEnd(state, event, at);
    case "assistant.message_delta":
    case "assistant.reasoning_delta":
      return delta(state, event);
    case "assistant.message":
      return assistantMessage(state, event.data, at);
    case "assistant.usage":
      return usage(state, event);
    case "assistant.tool_call_start":
    case "tool.execution_start":
    case "permission.requested":
    case "permission.completed":
    case "tool.execution_running":
    case "tool.execution_partial_result":
    case "tool.execution_progress":
    case "tool.execution_complete":
      return applyToolEvent(state, event, at);
    case "assistant.retry":
    case "session.task_complete":
    case "session.autopilot_stopped":
    case "session.error":
    case "abort":
    case "session.warning":
    case "session.info":
    case "session.mcp_server_status_changed":
      return applyMark(state, event, at);
    case "session.compaction_start":
    case "session.compaction_complete":
      return applyCompaction(state, event, at);
    // SDK-server-only, carried by others, or handled by `conversationEvents` (rewind.ts) first.
    case "external_tool.requested":
    case "external_tool.completed":
    case "hook.start":
    case "hook.end":
    case "session.mode_changed":
    case "session.usage_info":
    case "pending_messages.modified":
    case "session.snapshot_rewind":
    case "session.title_changed":
    case "session.grants_changed":
    case "session.shutdown":
      return NONE;
    default:
      return event satisfies never;
  }
}

/** Events of one tool call (state machine: tool-call.ts). */
type ToolEvent = Extract<
  SessionEvent,
  {
    type:
      | "assistant.tool_call_start"
      | "tool.execution_start"
      | "permission.requested"
      | "permission.completed"
      | "tool.execution_running"
      | "tool.execution_partial_result"
      | "tool.execution_progress"
      | "tool.execution_complete";
  }
>;

function applyToolEvent(state: FoldState, event: ToolEvent, at: number): Change {
  const { calls } = state;
  switch (event.type) {
    case "assistant.tool_call_start":
      return toolCall(calls.announce(event.data));
    case "tool.execution_start":
      return toolCall(calls.start(event.data, at));
    case "permission.requested":
      return toolCall(calls.permissionRequested(event.data, at));
    case "permission.completed":
      return toolCall(calls.permissionCompleted(event.data, at));
    case "tool.execution_running": {
      const call = calls.running(event.data.toolCallId, at);
      return call === undefined ? NONE : toolCall(call);
    }
    case "tool.execution_partial_result": {
      const call = calls.partialResult(event.data);
      return call === undefined ? NONE : toolCall(call);
    }
    case "tool.execution_progress": {
      const call = calls.progress(event.data, at);
      return call === undefined ? NONE : toolCall(call);
    }
    case "tool.execution_complete":
      // `ephemeral` on an event of a kept type: the log refused it (session-journal.ts).
      return toolCall(calls.complete(event.data, at, event.ephemeral !== true));
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** Events about the session as a whole: its opening, model, prompts, plan and instructions. */
type SessionLevelEvent = Extract<
  SessionEvent,
  {
    type:
      | "session.start"
      | "session.resume"
      | "session.model_change"
      | "user.message"
      | "session.plan_updated"
      | "session.idle"
      | "session.instructions_loaded";
  }
>;

function applySessionEvent(state: FoldState, event: SessionLevelEvent, at: number): Change {
  const { model, calls } = state;
  switch (event.type) {
    case "session.start":
      model.sessionId = event.data.sessionId;
      model.cwd = event.data.cwd;
      model.model = event.data.model;
      // Calls announced by an earlier run that ended mid-reply never ran.
      return { kind: "opened", abandoned: calls.abandonAnnounced(at) };
    case "session.resume": {
      const { repaired, notice } = event.data;
      const damagedLines = Array.isArray(repaired) ? repaired.length : 0;
      const mark = { kind: "resume" as const, at, damagedLines, ...(notice ? { notice } : {}) };
      model.marks.push(mark);
      return { kind: "opened", abandoned: calls.abandonAnnounced(at), mark };
    }
    case "session.model_change":
      model.model = event.data.newModel;
      return NONE;
    case "user.message": {
      // A prompt the stop rule took (it made it: prompt-stops.ts), else an autopilot nudge.
      const answered = state.answeredPrompt;
      const prompt = answered?.eventId === event.id ? answered : state.newPrompt(event, at);
      return { kind: "prompt", prompt };
    }
    case "session.plan_updated":
      model.plan = list(event.data.entries).map((entry, index) => ({
        ...entry,
        position: index + 1,
      }));
      return { kind: "plan" };
    case "session.idle":
      return NONE;
    case "session.instructions_loaded":
      model.instructionFiles = list(event.data.files).map((file) => file.path);
      return NONE;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** Events that are marks: something that happened, shown as a note. */
type MarkEvent = Extract<
  SessionEvent,
  {
    type:
      | "assistant.retry"
      | "session.task_complete"
      | "session.autopilot_stopped"
      | "session.error"
      | "abort"
      | "session.warning"
      | "session.info"
      | "session.mcp_server_status_changed";
  }
>;

function applyMark(state: FoldState, event: MarkEvent, at: number): Change {
  switch (event.type) {
    case "assistant.retry": {
      // A retried attempt is no turn of its own (usage-totals.ts): the next request takes its number.
      state.model.usage.apply(event);
      const { turnId, attempt, errorMessage: message, delayMs, statusCode } = event.data;
      const retry = { turnId, attempt, message, delayMs };
      return state.mark({ kind: "retry", at, ...retry, ...(statusCode ? { statusCode } : {}) });
    }
    case "session.task_complete":
      return state.mark({ kind: "task_complete", at, summary: event.data.summary });
    case "session.autopilot_stopped":
      return state.mark({ kind: "autopilot_stopped", at, continues: event.data.continues });
    case "session.error": {
      const { errorType, message } = event.data;
      return state.mark({ kind: "error", at, errorType, message });
    }
    case "abort":
      return state.mark({ kind: "abort", at, reason: event.data.reason });
    case "session.warning": {
      const { warningType, message } = event.data;
      return state.mark({ kind: "warning", at, warningType, message });
    }
    case "session.info":
      return state.mark({ kind: "info", at, message: event.data.message });
    case "session.mcp_server_status_changed": {
      const { serverName, status, error } = event.data;
      if (status !== "failed") {
        return NONE;
      }
      return state.mark({ kind: "mcp_server_failed", at, serverName, ...(error ? { error } : {}) });
    }
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

function toolCall(call: ToolCall): Change {
  return { kind: "tool_call", toolCall: call };
}

function delta(
  state: FoldState,
  event: Extract<SessionEvent, { type: "assistant.message_delta" | "assistant.reasoning_delta" }>,
): Change {
  const message = state.message(event.data.messageId);
  if (event.type === "assistant.message_delta") {
    message.content += event.data.deltaContent;
  } else {
    message.reasoning += event.data.deltaContent;
  }
  return { kind: "message", message, toolCalls: [], abandoned: [] };
}

function assistantMessage(
  state: FoldState,
  data: SessionEventData["assistant.message"],
  at: number,
): Change {
  const message = state.message(data.messageId);
  message.content = data.content;
  message.reasoning = data.reasoning ?? "";
  message.state = data.interrupted === true ? "interrupted" : "complete";
  if (data.error !== undefined) {
    message.error = data.error;
  }
  const toolCalls = list(data.toolRequests).map((request) =>
    state.calls.request(request, data.messageId),
  );
  message.toolCallIds = toolCalls.map((call) => call.toolCallId);
  // The message is the whole reply: a call it does not list will never run.
  const abandoned = state.calls.abandonAnnounced(at);
  return { kind: "message", message, toolCalls, abandoned };
}

function applyCompaction(
  state: FoldState,
  event: Extract<
    SessionEvent,
    { type: "session.compaction_start" | "session.compaction_complete" }
  >,
  at: number,
): Change {
  return event.type === "session.compaction_start"
    ? compactionStart(state, event.data, at)
    : compactionComplete(state, event.data, at);
}

function compactionStart(
  state: FoldState,
  data: SessionEventData["session.compaction_start"],
  at: number,
): Change {
  const compaction: Compaction = {
    startedAt: at,
    trigger: data.trigger,
    betweenPrompts: data.trigger === "manual",
    tokensBefore: data.currentTokens,
  };
  state.model.compactions.push(compaction);
  return { kind: "compaction", compaction };
}

function compactionComplete(
  state: FoldState,
  data: SessionEventData["session.compaction_complete"],
  at: number,
): Change {
  const open = state.model.compactions.at(-1);
  const compaction: Compaction =
    open !== undefined && open.endedAt === undefined
      ? open
      : { trigger: data.trigger, betweenPrompts: data.trigger === "manual" };
  if (compaction !== open) {
    state.model.compactions.push(compaction);
  }
  compaction.endedAt = at;
  compaction.success = data.success;
  compaction.tokensBefore = data.preCompactionTokens;
  const optional = {
    tokensAfter: data.postCompactionTokens,
    messagesRemoved: data.messagesRemoved,
    summary: data.summaryContent,
    error: data.error,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) {
      Object.assign(compaction, { [key]: value });
    }
  }
  return { kind: "compaction", compaction };
}

/** `data` is trusted to match its type once the envelope is checked; a list that is not one is empty. */
function list<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}
