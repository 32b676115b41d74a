/**
 * What a session's `session.shutdown` reports of its whole log (server/shutdown-metrics.ts),
 * folded as the session's stored events arrive: read by the resume (resume-fold.ts), then each
 * event the session records or reads from another process (session.ts). The server's shutdown
 * then reads nothing: a session with a reply of many MB decoded that line twice more at exit,
 * and held the whole log (issue 26, bench/notes/memory31.md).
 */

import type { SessionEvent, SessionEventOf } from "../events/events.js";
import { ModelUsageFold } from "./usage-totals.js";

/** The lines an `edit` or `create` call changes, known from its `tool.execution_start`. */
interface PendingChange {
  path: string;
  linesAdded: number;
  linesRemoved: number;
}

/**
 * The session's metrics so far, over every stored event (a rewind drops none of them): its first
 * `session.start`'s time, the model API time, the requests and usage per model
 * (usage-totals.ts `ModelUsageFold`), and the code the successful `edit` and `create` calls
 * changed. Holds only what is still open (turns, calls) besides the totals.
 */
export class SessionMetrics {
  /** `startTime` of the first `session.start` (ISO 8601), if one was folded. */
  startTime: string | undefined;
  /**
   * Milliseconds from each conversation turn's `assistant.turn_start` (no `purpose`) to its
   * `assistant.message`, or to its `assistant.turn_end` when no reply came.
   */
  apiDurationMs = 0;
  /** Requests and usage per model (usage-totals.ts `usageByModel`'s rule). */
  readonly usage = new ModelUsageFold();
  /** Lines added and removed by the successful `edit` and `create` calls. */
  linesAdded = 0;
  linesRemoved = 0;
  /** The paths those calls changed, as given (resolved against the cwd by the reader). */
  readonly filesModified = new Set<string>();
  /** Open conversation turns: turn id → when it started (ms since the epoch). */
  private readonly started = new Map<string, number>();
  /** The conversation turn a reply (`assistant.message`) ends. */
  private open: string | undefined;
  /** `edit` and `create` calls started and not ended yet. */
  private readonly changes = new Map<string, PendingChange>();

  /** Folds one stored event; types the metrics do not read are ignored. */
  apply(event: SessionEvent): void {
    this.usage.apply(event);
    switch (event.type) {
      case "session.start":
        this.startTime ??= event.data.startTime;
        return;
      case "assistant.turn_start":
        if (event.data.purpose === undefined) {
          this.started.set(event.data.turnId, Date.parse(event.timestamp));
          this.open = event.data.turnId;
        }
        return;
      case "assistant.message":
        this.finishTurn(this.open, event.timestamp);
        return;
      case "assistant.turn_end":
        this.finishTurn(event.data.turnId, event.timestamp);
        return;
      case "tool.execution_start":
        this.startCall(event.data);
        return;
      case "tool.execution_complete":
        this.completeCall(event.data.toolCallId, event.data.success);
        return;
      default:
        return;
    }
  }

  private finishTurn(turnId: string | undefined, timestamp: string): void {
    const at = turnId === undefined ? undefined : this.started.get(turnId);
    if (turnId !== undefined && at !== undefined) {
      this.apiDurationMs += Math.max(0, Date.parse(timestamp) - at);
      this.started.delete(turnId);
    }
  }

  private startCall(call: SessionEventOf<"tool.execution_start">["data"]): void {
    const given = call.arguments;
    const path = given.path;
    if (typeof path !== "string" || (call.toolName !== "edit" && call.toolName !== "create")) {
      this.changes.delete(call.toolCallId);
      return;
    }
    const edit = call.toolName === "edit";
    this.changes.set(call.toolCallId, {
      path,
      linesRemoved: edit ? lineCount(given.old_str) : 0,
      linesAdded: lineCount(edit ? given.new_str : given.file_text),
    });
  }

  private completeCall(toolCallId: string, success: boolean): void {
    const change = this.changes.get(toolCallId);
    this.changes.delete(toolCallId);
    if (change === undefined || !success) {
      return;
    }
    this.linesAdded += change.linesAdded;
    this.linesRemoved += change.linesRemoved;
    this.filesModified.add(change.path);
  }
}

/** Lines of a text argument (`"a\nb"` and `"a\nb\n"` are two); 0 for no text. */
function lineCount(text: unknown): number {
  if (typeof text !== "string" || text === "") {
    return 0;
  }
  return text.replace(/\n$/, "").split("\n").length;
}
