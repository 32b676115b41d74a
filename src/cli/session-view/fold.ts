/**
 * The fold behind {@link buildSessionView}: one pass over the events, in file order. See
 * view-model.ts for the log orders it accepts.
 */

import type { RepairNote } from "../../events/events.js";
import { idleReopens, repairsBeforeReopens } from "../idle-reopens.js";
import { applyEvent } from "./apply-event.js";
import { finishView } from "./finish.js";
import { Folder } from "./folder.js";
import type { NumberedEvent, SessionView } from "./view-model.js";

/**
 * Folds `events` (in file order, with their line numbers) and the reader's `repaired` notes into
 * a {@link SessionView}. Never throws on odd data: missing fields are left out. `processEnded`:
 * the session has no live writer (render.ts `ConversationOptions`), so nothing is running: a
 * last prompt left `unfinished` was interrupted, its process ended (`ViewPrompt.processEnded`),
 * and a turn left open and its calls left running are `interrupted`, as the next open records
 * them (open-work.ts).
 */
export function buildSessionView(
  events: readonly NumberedEvent[],
  repaired: readonly RepairNote[],
  { processEnded = false }: { processEnded?: boolean } = {},
): SessionView {
  const view = foldEvents(events, repaired);
  if (processEnded) {
    const last = view.prompts.at(-1);
    if (last?.stopReason === "unfinished") {
      last.stopReason = "interrupted";
      last.processEnded = true;
    }
    for (const turn of view.turns) {
      turn.status = turn.status === "open" ? "interrupted" : turn.status;
      for (const tool of turn.tools) {
        tool.status = tool.status === "running" ? "interrupted" : tool.status;
      }
    }
    view.summary.running = false;
  }
  return view;
}

/** See {@link buildSessionView}. */
export function foldEvents(
  events: readonly NumberedEvent[],
  repaired: readonly RepairNote[],
): SessionView {
  // A reopen after which nothing went on is not drawn, as `sessions show` leaves it out.
  const folder = new Folder(
    idleReopens(
      events.map(({ event }) => event),
      false,
    ),
  );
  const damage = [...repaired];
  let nextDamage = 0;
  // The work a reopen closed is drawn in its turn, before that reopen (idle-reopens.ts).
  for (const { event, line } of repairsBeforeReopens(events, (numbered) => numbered.event)) {
    const at = folder.time(event);
    while (nextDamage < damage.length && (damage[nextDamage]?.line ?? 0) < line) {
      const note = damage[nextDamage++] as RepairNote;
      folder.mark({ kind: "repaired", at, text: `line ${note.line} skipped: ${note.reason}` });
    }
    folder.model.apply(event);
    applyEvent(folder, event, at);
    folder.previousEventAt = at;
    folder.lastAt = at;
  }
  for (const note of damage.slice(nextDamage)) {
    folder.mark({
      kind: "repaired",
      at: folder.lastAt,
      text: `line ${note.line} skipped: ${note.reason}`,
    });
  }
  folder.closePrompt(true);
  return finishView(folder, repaired);
}
