/** How each event type changes the fold's state (see fold.ts). */

import { durationWords } from "../../events/durations.js";
import { type DrawnEvent, isSdkAppEvent } from "../../events/event-categories.js";
import {
  isEphemeralEvent,
  type RepairNote,
  type SessionEvent,
  type SessionEventOf,
} from "../../events/events.js";
import { compactionComplete, compactionStart } from "./compaction.js";
import { assignDefined, count, type Fields, text } from "./fields.js";
import type { Folder } from "./folder.js";
import type { ViewMark } from "./view-model.js";

/** Event types the view shows as a mark on the timeline (see {@link placeMark}). */
const MARK_EVENT_TYPES = [
  "session.resume",
  "assistant.retry",
  "session.plan_updated",
  "session.task_complete",
  "session.autopilot_stopped",
  "session.error",
  "abort",
  "session.instructions_loaded",
  "session.warning",
  "hook.start",
  "hook.end",
] as const satisfies readonly DrawnEvent["type"][];

type MarkEvent = Extract<DrawnEvent, { type: (typeof MARK_EVENT_TYPES)[number] }>;

const markEventTypes: ReadonlySet<string> = new Set(MARK_EVENT_TYPES);

function isMarkEvent(event: SessionEvent): event is MarkEvent {
  return markEventTypes.has(event.type);
}

/**
 * Applies one event. An exhaustive switch: a new event type must be placed here (ephemeral events
 * are never in a log, and the SDK app's own events are not drawn: see `isSdkAppEvent`).
 */
export function applyEvent(folder: Folder, event: SessionEvent, at: number): void {
  if (event.type === "session.model_change") {
    folder.markForNext(modelChangeMark(event, at));
    return;
  }
  if (isEphemeralEvent(event) || isSdkAppEvent(event)) {
    return;
  }
  if (isMarkEvent(event)) {
    placeMark(folder, event, event.data as unknown as Fields, at);
    return;
  }
  const data = event.data as unknown as Fields;
  switch (event.type) {
    case "session.start":
      folder.start(data, event.timestamp);
      return;
    case "user.message":
      folder.userMessage(at, data);
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
    case "session.compaction_start":
      compactionStart(folder, at, data);
      return;
    case "session.compaction_complete":
      compactionComplete(folder, at, data);
      return;
    case "session.info":
      // An SDK app's log line.
      return;
    default: {
      // A new event type fails to compile here until the view places it.
      const unhandled: never = event;
      void unhandled;
    }
  }
}

/**
 * Where the model changed: an SDK app's event that `sessions show` draws too (render.ts), with
 * the same words.
 */
function modelChangeMark(event: SessionEventOf<"session.model_change">, at: number): ViewMark {
  return {
    kind: "model",
    at,
    text: `model: ${event.data.previousModel ?? "?"} → ${event.data.newModel}`,
  };
}

/** Places the timeline mark of `event` (a retry goes to its turn). Exhaustive over {@link MarkEvent}. */
function placeMark(folder: Folder, event: MarkEvent, data: Fields, at: number): void {
  switch (event.type) {
    case "session.resume": {
      if (folder.idleReopens.has(event)) {
        return;
      }
      const notes = Array.isArray(data.repaired) ? (data.repaired as RepairNote[]) : [];
      folder.resumeRepairs.push(...notes);
      const repairs =
        notes.length > 0
          ? `, ${notes.length} damaged ${notes.length === 1 ? "line" : "lines"} repaired`
          : "";
      const mark: ViewMark = { kind: "resume", at, text: `session resumed${repairs}` };
      assignDefined(mark, { detail: text(data.notice) });
      folder.markForNext(mark);
      return;
    }
    case "assistant.retry": {
      const status = count(data.statusCode);
      const message = text(data.errorMessage) ?? "";
      // A status failure's message names its status already (llm/errors.ts: `HTTP 500: …`).
      const after =
        status === undefined || message.startsWith(`HTTP ${status}`) ? "" : ` after HTTP ${status}`;
      const line = `retry ${count(data.attempt) ?? "?"}${after}: ${message}`;
      const mark: ViewMark = { kind: "retry", at, text: line };
      const waited = count(data.delayMs);
      assignDefined(mark, {
        detail: `waited ${waited === undefined ? "?" : durationWords(waited)}`,
      });
      folder.mark(mark, text(data.turnId));
      return;
    }
    default:
      folder.mark(markOf(event, data, at));
  }
}

/** The mark of an event that belongs to no particular turn. */
function markOf(
  event: Exclude<MarkEvent, { type: "session.resume" | "assistant.retry" }>,
  data: Fields,
  at: number,
): ViewMark {
  switch (event.type) {
    case "session.plan_updated": {
      const entries = Array.isArray(data.entries) ? (data.entries as Fields[]) : [];
      const plan = entries.map((entry) => `[${text(entry.status)}] ${text(entry.content)}`);
      return { kind: "plan", at, text: "plan updated", detail: plan.join("\n") };
    }
    case "session.task_complete":
      return { kind: "task_complete", at, text: "task complete", detail: text(data.summary) };
    case "session.autopilot_stopped":
      return {
        kind: "autopilot_stopped",
        at,
        text: `autopilot stopped after ${nudges(count(data.continues))}: task not marked complete`,
      };
    case "session.error":
      return { kind: "error", at, text: `error (${text(data.errorType)}): ${text(data.message)}` };
    case "abort":
      return { kind: "abort", at, text: `aborted: ${text(data.reason) ?? ""}` };
    case "session.instructions_loaded": {
      const files = Array.isArray(data.files) ? (data.files as Fields[]) : [];
      const lines = files.map((file) => `${text(file.path)} (${text(file.scope)})`);
      const plural = files.length === 1 ? "" : "s";
      return {
        kind: "instructions",
        at,
        text: `instructions: ${files.length} file${plural}`,
        detail: lines.join("\n"),
      };
    }
    case "session.warning":
      return {
        kind: "warning",
        at,
        text: `warning: ${text(data.warningType) ?? ""}`,
        detail: text(data.message),
      };
    case "hook.start":
      return { kind: "hook", at, text: `hook ${text(data.hookType)} started` };
    case "hook.end": {
      const outcome = data.success === true ? "answered" : "failed";
      return { kind: "hook", at, text: `hook ${text(data.hookType)} ${outcome}` };
    }
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** "1 nudge", "2 nudges", or "? nudges" when the event has no count. */
function nudges(counted: number | undefined): string {
  return counted === 1 ? "1 nudge" : `${counted ?? "?"} nudges`;
}
