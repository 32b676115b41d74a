import { readFile } from "node:fs/promises";
import type { RepairNote } from "../../events/events.js";
import { decodeEventLine } from "../../session/event-log.js";
import type { NumberedEvent } from "./view-model.js";

/** A log read for viewing: every event with its line, and the damage skipped. */
export interface NumberedLog {
  events: NumberedEvent[];
  repaired: RepairNote[];
  /** Bytes of the file. */
  size: number;
}

/**
 * Reads `events.jsonl` as `readEventLog` does (the same line decoder, the same notes for damaged
 * lines and a torn tail), keeping each event's 1-based line so the view can place the damage
 * between the events around it. A torn tail of a running session (a line being written) is
 * reported like any other.
 * @throws the I/O error as is (`ENOENT`, `EACCES`, …).
 */
export async function readNumberedLog(path: string): Promise<NumberedLog> {
  const bytes = await readFile(path);
  const events: NumberedEvent[] = [];
  const repaired: RepairNote[] = [];
  let offset = 0;
  let line = 1;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    if (end === -1) {
      repaired.push({ line, offset, length: bytes.length - offset, reason: "torn_tail" });
      break;
    }
    const result = decodeEventLine(bytes.subarray(offset, end));
    if (result.kind === "event") {
      events.push({ event: result.event, line });
    } else if (result.kind === "damaged") {
      repaired.push({ line, offset, length: end - offset, reason: result.reason });
    }
    offset = end + 1;
    line += 1;
  }
  return { events, repaired, size: bytes.length };
}
