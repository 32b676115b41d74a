/**
 * The `session.shutdown` event of a server session (Copilot's event: the Copilot SDK's
 * `ShutdownData` in its `dist/generated/session-events.d.ts`), with the metrics of the
 * whole session, folded from its stored events as they arrived.
 */

import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage } from "../events/errors.js";
import type { EventInput, SessionShutdown } from "../events/events.js";
import type { Session } from "../session/session.js";
import type { SessionMetrics } from "../session/usage-totals.js";

/**
 * Records `session.shutdown` in `session` and resolves once it is stored and told (before it
 * closes: the apps still attached see it),
 * with `currentModel` the model of the next prompts. Its metrics are the session's own, folded as
 * its events arrived (session/usage-totals.ts `SessionMetrics`): the log is not read again. A
 * commit the store refuses (a full disk) leaves the events held back, the shutdown after them: the
 * log's close tries once more and names those it could not write (the file store's idle lease,
 * session/idle-lease-appender.ts; PostgreSQL, session/postgres/appender.ts). One the log refuses
 * at once (its append throws) is said with `log`.
 * Never throws.
 */
export async function recordShutdown(
  session: Session,
  cause: ShutdownCause,
  currentModel: string,
  log: (message: string) => void,
): Promise<void> {
  // Every event so far written, so that the size counts them (refused: held back, see above).
  await session.journal.commit().catch(() => undefined);
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
  try {
    session.emit(shutdownEvent(session.metrics, cause, state));
  } catch (error) {
    log(`session ${session.id}: session.shutdown was not recorded (${errorMessage(error)})`);
    return;
  }
  // Stored and told before the caller lets the apps go: a store that holds it back until a
  // commit (an idle file-store session's lease let go, PostgreSQL) tells it only then
  // (session/held-delivery.ts). Refused, it stays held back for the close (see above).
  await session.journal.commit().catch(() => undefined);
}

/**
 * What `session.shutdown` and `session.usage.getMetrics` both report of `metrics`: per model its
 * requests (`{count, cost}`, cost in US dollars) and usage, keyed by the model's full id (the wire
 * names it bare: wire-events.ts), and the code changes, paths resolved against `cwd`.
 */
export function metricsOnWire(metrics: SessionMetrics, cwd: string) {
  const modelMetrics: SessionShutdown["modelMetrics"] = {};
  for (const [model, { requests, cost, ...usage }] of metrics.usage.byModel) {
    modelMetrics[model] = { requests: { count: requests, cost }, usage };
  }
  const { linesAdded, linesRemoved } = metrics;
  const filesModified = [...new Set([...metrics.filesModified].map((path) => resolve(cwd, path)))];
  return { modelMetrics, codeChanges: { linesAdded, linesRemoved, filesModified } };
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
 * `session.shutdown` for the session whose stored events folded into `metrics`: per model its
 * requests, failed and cancelled ones included, and the usage they reported (usage-totals.ts
 * `ModelUsageFold`); API time from each conversation turn's `assistant.turn_start` to its
 * `assistant.message` (or its `assistant.turn_end` when no reply came); code changes from the
 * successful `edit` and `create` calls (lines of `old_str` removed and `new_str` added; a
 * created file's lines added), with paths resolved against `state.cwd`.
 */
export function shutdownEvent(
  metrics: SessionMetrics,
  cause: ShutdownCause,
  state: ShutdownState,
): EventInput {
  const { modelMetrics, codeChanges } = metricsOnWire(metrics, state.cwd);
  const data: SessionShutdown = {
    ...cause,
    sessionStartTime: Date.parse(metrics.startTime ?? ""),
    totalApiDurationMs: metrics.apiDurationMs,
    modelMetrics,
    codeChanges,
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
