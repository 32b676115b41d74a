/**
 * The `session.shutdown` event of a server session (Copilot's event: the Copilot SDK's
 * `ShutdownData` in its `dist/generated/session-events.d.ts`), with the metrics of the
 * whole session folded from its stored events.
 */

import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { EventInput, SessionEvent, SessionShutdown } from "../events/events.js";
import type { SessionHost } from "../session/host.js";
import type { Session } from "../session/session.js";
import { usageByModel } from "../session/usage-totals.js";

/**
 * Records `session.shutdown` in `session` (before it closes: the apps still attached see it),
 * with `currentModel` the model of the next prompts. A log that can no longer be read or written
 * (the session is going away) records nothing; never throws.
 */
export async function recordShutdown(
  host: SessionHost,
  session: Session,
  cause: ShutdownCause,
  currentModel: string,
): Promise<void> {
  try {
    const { events } = await host.readEvents(session.id);
    const size = await stat(session.transcriptPath).then(
      (stats) => stats.size,
      () => undefined,
    );
    const state = {
      cwd: session.cwd,
      currentModel,
      currentTokens: session.history.meter.current(0),
      ...(size === undefined ? {} : { eventsFileSizeBytes: size }),
    };
    session.emit(shutdownEvent(events, cause, state));
  } catch {
    // Nobody is left to read it: the log is closed or gone.
  }
}

/** How the session ended: `routine` unless the app's `session.shutdown` said `error`. */
export interface ShutdownCause {
  shutdownType: "routine" | "error";
  errorReason?: string;
}

/** What the event reports besides the log: the model now, and the context's tokens now. */
export interface ShutdownState {
  cwd: string;
  currentModel: string;
  currentTokens: number;
  eventsFileSizeBytes?: number;
}

/**
 * `session.shutdown` for the session whose stored events are `events`: per model its requests,
 * failed and cancelled ones included, and the usage they reported (usage-totals.ts
 * `usageByModel`); API time from each conversation turn's `assistant.turn_start` to its
 * `assistant.message` (or its `assistant.turn_end` when no reply came); code changes from the
 * successful `edit` and `create` calls (lines of `old_str` removed and `new_str` added; a
 * created file's lines added), with paths resolved against `state.cwd`.
 */
export function shutdownEvent(
  events: readonly SessionEvent[],
  cause: ShutdownCause,
  state: ShutdownState,
): EventInput {
  const start = events.find((event) => event.type === "session.start");
  const data: SessionShutdown = {
    ...cause,
    sessionStartTime: Date.parse(start?.type === "session.start" ? start.data.startTime : ""),
    totalApiDurationMs: apiDurationMs(events),
    modelMetrics: modelMetrics(events),
    codeChanges: codeChanges(events, state.cwd),
    currentModel: state.currentModel,
    currentTokens: state.currentTokens,
    ...(state.eventsFileSizeBytes === undefined
      ? {}
      : { eventsFileSizeBytes: state.eventsFileSizeBytes }),
  };
  if (Number.isNaN(data.sessionStartTime)) {
    data.sessionStartTime = 0;
  }
  return { type: "session.shutdown", data };
}

function apiDurationMs(events: readonly SessionEvent[]): number {
  const started = new Map<string, number>();
  let total = 0;
  const finish = (turnId: string | undefined, timestamp: string) => {
    const at = turnId === undefined ? undefined : started.get(turnId);
    if (turnId !== undefined && at !== undefined) {
      total += Math.max(0, Date.parse(timestamp) - at);
      started.delete(turnId);
    }
  };
  let open: string | undefined;
  for (const event of events) {
    switch (event.type) {
      case "assistant.turn_start":
        if (event.data.purpose === undefined) {
          started.set(event.data.turnId, Date.parse(event.timestamp));
          open = event.data.turnId;
        }
        break;
      case "assistant.message":
        finish(open, event.timestamp);
        break;
      case "assistant.turn_end":
        finish(event.data.turnId, event.timestamp);
        break;
      default:
        break;
    }
  }
  return total;
}

function modelMetrics(events: readonly SessionEvent[]): SessionShutdown["modelMetrics"] {
  const metrics: SessionShutdown["modelMetrics"] = {};
  for (const [model, { requests, cost, ...usage }] of usageByModel(events)) {
    metrics[model] = { requests: { count: requests, cost }, usage };
  }
  return metrics;
}

function codeChanges(events: readonly SessionEvent[], cwd: string): SessionShutdown["codeChanges"] {
  const calls = new Map<string, { toolName: string; arguments: Record<string, unknown> }>();
  const files = new Set<string>();
  const changes = { linesAdded: 0, linesRemoved: 0 };
  for (const event of events) {
    if (event.type === "tool.execution_start") {
      calls.set(event.data.toolCallId, event.data);
      continue;
    }
    if (event.type !== "tool.execution_complete" || !event.data.success) {
      continue;
    }
    const call = calls.get(event.data.toolCallId);
    const path = call?.arguments.path;
    if (typeof path !== "string" || (call?.toolName !== "edit" && call?.toolName !== "create")) {
      continue;
    }
    const { old_str: removed, new_str: added, file_text: created } = call.arguments;
    changes.linesRemoved += call.toolName === "edit" ? lineCount(removed) : 0;
    changes.linesAdded += lineCount(call.toolName === "edit" ? added : created);
    files.add(resolve(cwd, path));
  }
  return { ...changes, filesModified: [...files] };
}

/** Lines of a text argument (`"a\nb"` and `"a\nb\n"` are two); 0 for no text. */
function lineCount(text: unknown): number {
  if (typeof text !== "string" || text === "") {
    return 0;
  }
  return text.replace(/\n$/, "").split("\n").length;
}
