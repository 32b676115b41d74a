/** How each event type changes the fold's state (see fold.ts). */

import type { RepairNote, SessionEvent } from "../../events/events.js";
import { assignDefined, count, type Fields, text } from "./fields.js";
import type { Folder } from "./folder.js";
import type { ViewMark } from "./view-model.js";

/** Applies one event. An exhaustive switch: a new event type must be placed here. */
export function applyEvent(folder: Folder, event: SessionEvent, at: number): void {
  const data = event.data as unknown as Fields;
  switch (event.type) {
    case "session.start":
      assignDefined(folder.session, {
        sessionId: text(data.sessionId),
        cwd: text(data.cwd),
        producerVersion: text(data.producerVersion),
        model: text(data.model),
        startTime: event.timestamp,
      });
      return;
    case "session.resume": {
      const notes = Array.isArray(data.repaired) ? (data.repaired as RepairNote[]) : [];
      folder.resumeRepairs.push(...notes);
      const repairs = notes.length > 0 ? `, ${notes.length} damaged line(s) repaired` : "";
      const mark: ViewMark = { kind: "resume", at, text: `session resumed${repairs}` };
      assignDefined(mark, { detail: text(data.notice) });
      folder.mark(mark);
      return;
    }
    case "user.message":
      if (data.source === "autopilot") {
        folder.mark({ kind: "nudge", at, text: "autopilot nudge", detail: text(data.content) });
      } else {
        folder.startPrompt(at, data);
      }
      return;
    case "assistant.turn_start":
      folder.startTurn(at, data);
      return;
    case "assistant.message":
      folder.message(at, data);
      return;
    case "assistant.usage":
      folder.usage(data);
      return;
    case "assistant.retry": {
      const status = count(data.statusCode);
      const line = `retry ${count(data.attempt) ?? "?"}${status === undefined ? "" : ` after HTTP ${status}`}: ${text(data.errorMessage) ?? ""}`;
      const mark: ViewMark = { kind: "retry", at, text: line };
      assignDefined(mark, { detail: `waited ${count(data.delayMs) ?? "?"} ms` });
      folder.mark(mark, text(data.turnId));
      return;
    }
    case "assistant.turn_end":
      folder.endTurn(at, data);
      return;
    case "tool.execution_start":
      folder.toolStart(at, data);
      return;
    case "tool.execution_complete":
      folder.toolComplete(at, data);
      return;
    case "permission.requested":
      folder.permissionRequested(at, data);
      return;
    case "permission.completed":
      folder.permissionCompleted(at, data);
      return;
    case "session.plan_updated": {
      const entries = Array.isArray(data.entries) ? (data.entries as Fields[]) : [];
      const plan = entries.map((entry) => `[${text(entry.status)}] ${text(entry.content)}`);
      folder.mark({ kind: "plan", at, text: "plan updated", detail: plan.join("\n") });
      return;
    }
    case "session.task_complete":
      folder.mark({ kind: "task_complete", at, text: "task complete", detail: text(data.summary) });
      return;
    case "session.autopilot_stopped":
      folder.mark({
        kind: "autopilot_stopped",
        at,
        text: `autopilot stopped after ${count(data.continues) ?? "?"} nudge(s): task not marked complete`,
      });
      return;
    case "session.error":
      folder.mark({
        kind: "error",
        at,
        text: `error (${text(data.errorType)}): ${text(data.message)}`,
      });
      return;
    case "abort":
      folder.mark({ kind: "abort", at, text: `aborted: ${text(data.reason) ?? ""}` });
      return;
    case "session.compaction_start":
      folder.compactionStart(at, data);
      return;
    case "session.compaction_complete":
      folder.compactionComplete(at, data);
      return;
    case "session.instructions_loaded": {
      const files = Array.isArray(data.files) ? (data.files as Fields[]) : [];
      const lines = files.map((file) => `${text(file.path)} (${text(file.scope)})`);
      folder.mark({
        kind: "instructions",
        at,
        text: `instructions: ${files.length} file${files.length === 1 ? "" : "s"}`,
        detail: lines.join("\n"),
      });
      return;
    }
    case "session.warning":
      folder.mark({
        kind: "warning",
        at,
        text: `warning: ${text(data.warningType) ?? ""}`,
        detail: text(data.message),
      });
      return;
    case "hook.start":
      folder.mark({ kind: "hook", at, text: `hook ${text(data.hookType)} started` });
      return;
    case "hook.end":
      folder.mark({
        kind: "hook",
        at,
        text: `hook ${text(data.hookType)} ${data.success === true ? "answered" : "failed"}`,
      });
      return;
    // The tool call itself is drawn from tool.execution_*; ephemeral events are never on disk.
    case "external_tool.requested":
    case "external_tool.completed":
    case "assistant.message_delta":
    case "assistant.reasoning_delta":
    case "assistant.tool_call_start":
    case "tool.execution_running":
    case "tool.execution_partial_result":
    case "session.idle":
    case "session.mcp_server_status_changed":
    // SDK-server events (model and mode switches, app log lines, queue and context reports).
    case "session.model_change":
    case "session.mode_changed":
    case "session.usage_info":
    case "pending_messages.modified":
    case "session.info":
      return;
    default: {
      // A new event type fails to compile here until the view places it.
      const unhandled: never = event;
      void unhandled;
    }
  }
}
