/** The one line saying what opening a session's log repaired (README, "Where sessions are kept"). */

import type { RepairNote, SessionEvent, SessionEventData } from "../events/events.js";
import type { StoredLog } from "./session-store.js";

/**
 * `session.resume`'s data (without the app's `ResumeDetails`) for reopening `log`: the damage the
 * reader skipped, what `closed` counts, and the one line saying what is new ({@link repairNotice}).
 */
export function resumeData(log: StoredLog, closed: ClosedWork): SessionEventData["session.resume"] {
  const notice = repairNotice(log.events, log.repaired, closed);
  return {
    resumeTime: new Date().toISOString(),
    eventCount: log.eventCount ?? log.events.length,
    repaired: log.repaired,
    ...(closed.toolCalls === 0 ? {} : { interruptedToolCalls: closed.toolCalls }),
    ...(closed.turns === 0 ? {} : { interruptedTurns: closed.turns }),
    ...(closed.compactions === 0 ? {} : { interruptedCompactions: closed.compactions }),
    ...(notice === undefined ? {} : { notice }),
  };
}

/** What reopening a log closed that a process which ended left open (open-work.ts). */
export interface ClosedWork {
  toolCalls: number;
  turns: number;
  compactions: number;
}

/**
 * One line saying what opening a log repaired that no earlier open reported (issue 11): a torn
 * last line cut, damaged lines skipped (they stay in the file and are skipped on every open, so
 * only those no earlier `session.resume` lists count), lines not of the log's chain skipped the
 * same way (log-chain.ts), tool calls left without a result given an interrupted one, turns and
 * compactions left open closed as interrupted. `undefined` when there is nothing new. Faces show it once: stderr for `-p`,
 * `_meta` for ACP, the `session.resume` event for SDK clients.
 */
export function repairNotice(
  events: readonly SessionEvent[],
  repaired: readonly RepairNote[],
  closed: ClosedWork,
): string | undefined {
  const reported = new Set(
    events.flatMap((event) =>
      event.type === "session.resume" ? event.data.repaired.map(noteKey) : [],
    ),
  );
  const fresh = repaired.filter((note) => !reported.has(noteKey(note)));
  const torn = fresh.filter((note) => note.reason === "torn_tail");
  const damaged = fresh.filter((note) => isDamage(note.reason));
  const foreign = fresh.filter((note) => note.reason !== "torn_tail" && !isDamage(note.reason));
  const parts: string[] = [];
  for (const note of torn) {
    parts.push(`cut a torn last line (line ${note.line}, ${note.length} bytes)`);
  }
  if (damaged.length > 0) {
    const lines = damaged.map((note) => note.line).join(", ");
    parts.push(`skipped ${count(damaged.length, "damaged line")} (${lines})`);
  }
  if (foreign.length > 0) {
    const lines = foreign.map((note) => `${note.line}: ${note.reason}`).join(", ");
    const what = foreign.length === 1 ? "line that is not" : "lines that are not";
    parts.push(`skipped ${foreign.length} ${what} of this session's chain (${lines})`);
  }
  if (closed.toolCalls > 0) {
    parts.push(
      `gave ${count(closed.toolCalls, "tool call")} left without a result an interrupted result`,
    );
  }
  if (closed.turns > 0 || closed.compactions > 0) {
    const open = [
      ...(closed.turns > 0 ? [count(closed.turns, "turn")] : []),
      ...(closed.compactions > 0 ? [count(closed.compactions, "compaction")] : []),
    ];
    parts.push(`closed ${open.join(" and ")} left open when its process ended, as interrupted`);
  }
  return parts.length === 0 ? undefined : `repaired the session log: ${parts.join("; ")}`;
}

/** Whether `reason` is a line that did not decode (not one of another chain, nor a torn tail). */
function isDamage(reason: RepairNote["reason"]): boolean {
  return reason === "invalid_json" || reason === "invalid_event";
}

function noteKey(note: RepairNote): string {
  return `${note.offset}:${note.length}:${note.reason}`;
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? "" : "s"}`;
}
