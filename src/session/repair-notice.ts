import type { RepairNote, SessionEvent } from "../events/events.js";

/**
 * One line saying what opening a log repaired that no earlier open reported (issue 11): a torn
 * last line cut, damaged lines skipped (they stay in the file and are skipped on every open, so
 * only those no earlier `session.resume` lists count), tool calls left without a result given an
 * interrupted one. `undefined` when there is nothing new. Faces show it once: stderr for `-p`,
 * `_meta` for ACP, the `session.resume` event for SDK clients.
 */
export function repairNotice(
  events: readonly SessionEvent[],
  repaired: readonly RepairNote[],
  interruptedCalls: number,
): string | undefined {
  const reported = new Set(
    events.flatMap((event) =>
      event.type === "session.resume" ? event.data.repaired.map(noteKey) : [],
    ),
  );
  const fresh = repaired.filter((note) => !reported.has(noteKey(note)));
  const torn = fresh.filter((note) => note.reason === "torn_tail");
  const damaged = fresh.filter((note) => note.reason !== "torn_tail");
  const parts: string[] = [];
  for (const note of torn) {
    parts.push(`cut a torn last line (line ${note.line}, ${note.length} bytes)`);
  }
  if (damaged.length > 0) {
    const lines = damaged.map((note) => note.line).join(", ");
    parts.push(`skipped ${count(damaged.length, "damaged line")} (${lines})`);
  }
  if (interruptedCalls > 0) {
    parts.push(
      `gave ${count(interruptedCalls, "tool call")} left without a result an interrupted result`,
    );
  }
  return parts.length === 0 ? undefined : `repaired the session log: ${parts.join("; ")}`;
}

function noteKey(note: RepairNote): string {
  return `${note.offset}:${note.length}:${note.reason}`;
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? "" : "s"}`;
}
